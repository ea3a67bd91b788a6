/**
 * The app: sign-in, then the pages under a header with the navigation. Route changes move the
 * focus to the new page's heading, so keyboard and screen-reader users land where the page starts.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiClient } from './api/client.js';
import { loadSession, saveSession, signOut, type Session } from './api/session.js';
import { ClientContext } from './hooks.js';
import { Controllers } from './pages/Controllers.js';
import { Login } from './pages/Login.js';
import { ObjectPage } from './pages/ObjectPage.js';
import { Overview } from './pages/Overview.js';
import { Resources } from './pages/Resources.js';
import { navigate, useRoute, type Route } from './router.js';

export function App() {
  const route = useRoute();
  const [session, setSession] = useState<Session | undefined>(loadSession);
  const client = useMemo(
    () =>
      session === undefined
        ? undefined
        : new ApiClient(session.token, () => {
            saveSession(undefined);
            setSession(undefined);
          }),
    [session],
  );
  const code = route.segments[0] === 'login' ? (route.query.get('code') ?? undefined) : undefined;

  useEffect(() => {
    if (session !== undefined && route.segments[0] === 'login' && code === undefined) navigate('#/', true);
  }, [session, route, code]);

  if (session === undefined || client === undefined || code !== undefined) {
    return (
      <Login
        key={code ?? 'form'}
        code={code}
        onSignedIn={(s) => {
          saveSession(s);
          setSession(s);
          // Drop the spent code from the address bar and the history.
          if (route.segments[0] === 'login') navigate('#/', true);
        }}
      />
    );
  }

  return (
    <ClientContext.Provider value={client}>
      <Shell
        route={route}
        session={session}
        onSignOut={() => {
          void signOut(session);
          saveSession(undefined);
          setSession(undefined);
          navigate('#/login', true);
        }}
      />
    </ClientContext.Provider>
  );
}

function Shell(props: { route: Route; session: Session; onSignOut: () => void }) {
  const main = useRef<HTMLElement>(null);
  const section = props.route.segments[0] ?? '';
  const pathKey = props.route.segments.join('/');

  useEffect(() => {
    // Move the focus to the new page's heading once it renders (pages may load first, however long
    // that takes), unless the user is typing somewhere or has moved the focus in the meantime.
    const root = main.current;
    if (root === null) return;
    const startedOn = document.activeElement;
    const focusHeading = (): boolean => {
      const active = document.activeElement;
      if (active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement || active instanceof HTMLSelectElement) return true;
      if (active !== startedOn && active !== document.body && active !== root && !root.contains(active)) return true;
      const heading = root.querySelector<HTMLElement>('h1');
      if (heading === null) return false;
      heading.focus();
      return true;
    };
    if (focusHeading()) return;
    root.focus();
    const observer = new MutationObserver(() => {
      if (focusHeading()) observer.disconnect();
    });
    observer.observe(root, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [pathKey]);

  const link = (href: string, text: string, active: boolean) => (
    <a href={href} aria-current={active ? 'page' : undefined}>
      {text}
    </a>
  );

  let page;
  switch (section) {
    case '':
      page = <Overview />;
      break;
    case 'resources':
    case 'r':
      page = <Resources route={props.route} />;
      break;
    case 'o':
      page = <ObjectPage route={props.route} />;
      break;
    case 'controllers':
      page = <Controllers />;
      break;
    default:
      page = (
        <>
          <h1 tabIndex={-1}>Not found</h1>
          <p>
            No page here. <a href="#/">Overview</a>
          </p>
        </>
      );
  }

  return (
    <>
      <button type="button" class="skip" onClick={() => main.current?.focus()}>
        Skip to content
      </button>
      <header class="topbar">
        <a href="#/" class="brand">
          Setpoint
        </a>
        <nav aria-label="Main">
          {link('#/', 'Overview', section === '')}
          {link('#/resources', 'Resources', section === 'resources' || section === 'r' || section === 'o')}
          {link('#/controllers', 'Controllers', section === 'controllers')}
        </nav>
        <span class="user" title={props.session.groups.join(', ')}>
          {props.session.username}
        </span>
        <button type="button" onClick={props.onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {page}
      </main>
    </>
  );
}
