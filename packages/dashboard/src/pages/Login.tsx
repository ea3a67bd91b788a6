/**
 * Sign in: a sign-in link (#/login?code=…, printed by `setpoint up` and `setpoint dashboard`) signs
 * in at once; otherwise a bearer token (the admin token in DATA/admin.token, a token of
 * --token-auth-file, `kubectl create token NAME`) is checked and kept for this tab.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorBox } from '../components/bits.js';
import { signInWithCode, signInWithToken, type Session } from '../api/session.js';

export function Login(props: { code: string | undefined; onSignedIn: (session: Session) => void }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const started = useRef(false);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (props.code === undefined || started.current) return;
    started.current = true;
    setBusy(true);
    signInWithCode(props.code).then(props.onSignedIn, (err: unknown) => {
      setError(err);
      setBusy(false);
      input.current?.focus();
    });
  }, [props.code]);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (token.trim() === '') return;
    setBusy(true);
    setError(undefined);
    try {
      props.onSignedIn(await signInWithToken(token));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <main id="main" class="login">
      <h1>Setpoint</h1>
      {props.code !== undefined && busy ? (
        <p role="status">Signing in with the link…</p>
      ) : (
        <form onSubmit={(e) => void submit(e)} aria-busy={busy}>
          <label for="token">Bearer token</label>
          <input
            id="token"
            ref={input}
            type="password"
            autocomplete="off"
            spellcheck={false}
            value={token}
            onInput={(e) => setToken((e.currentTarget as HTMLInputElement).value)}
            aria-describedby="token-help"
            autoFocus
          />
          <p id="token-help" class="muted">
            The admin token is in <code>~/.setpoint/admin.token</code>. Or run <code>setpoint dashboard</code> for a one-time sign-in link.
          </p>
          <button type="submit" disabled={busy || token.trim() === ''}>
            Sign in
          </button>
        </form>
      )}
      {error !== undefined ? <ErrorBox error={error} title="Could not sign in" /> : null}
    </main>
  );
}
