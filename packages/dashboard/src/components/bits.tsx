/** Small pieces the pages share: ages, errors, labels, conditions. */
import type { ComponentChildren } from 'preact';
import { ApiStatusError, errorText } from '../api/client.js';
import type { Condition } from '../api/types.js';

/** A duration as kubectl prints ages: 45s, 3m12s, 5h, 4d. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  return d < 365 ? `${d}d` : `${Math.floor(d / 365)}y${d % 365}d`;
}

/** How long ago `time` (ISO) was, with the exact time as a tooltip. */
export function Age(props: { time: string | undefined; now: number }) {
  if (props.time === undefined || props.time === '') return <span class="muted">—</span>;
  const t = Date.parse(props.time);
  if (Number.isNaN(t)) return <span>{props.time}</span>;
  return (
    <time dateTime={props.time} title={new Date(t).toLocaleString()}>
      {formatAge(props.now - t)}
    </time>
  );
}

/** An error in place: the server's message, its reason and code, and the fields it names. */
export function ErrorBox(props: { error: unknown; title?: string; children?: ComponentChildren }) {
  const err = props.error;
  const causes = err instanceof ApiStatusError ? (err.status.details?.causes ?? []) : [];
  return (
    <div class="error" role="alert">
      <strong>{props.title ?? (err instanceof ApiStatusError ? `${err.reason ?? 'Error'} (${err.code})` : 'Error')}</strong>
      <p>{errorText(err)}</p>
      {causes.length > 0 ? (
        <ul>
          {causes.map((c, i) => (
            <li key={i}>
              {c.field ? <code>{c.field}</code> : null} {c.message}
            </li>
          ))}
        </ul>
      ) : null}
      {props.children}
    </div>
  );
}

export function Labels(props: { labels: Record<string, string> | undefined }) {
  const entries = Object.entries(props.labels ?? {});
  if (entries.length === 0) return <span class="muted">none</span>;
  return (
    <ul class="chips" aria-label="labels">
      {entries.map(([k, v]) => (
        <li key={k} class="chip">
          {k}={v}
        </li>
      ))}
    </ul>
  );
}

/** Conditions with their reasons, messages and transition times. */
export function Conditions(props: { conditions: readonly Condition[]; now: number }) {
  if (props.conditions.length === 0) return <p class="muted">No conditions reported.</p>;
  return (
    <div class="scroll-x">
      <table class="data">
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Status</th>
            <th scope="col">Reason</th>
            <th scope="col">Message</th>
            <th scope="col">Last transition</th>
          </tr>
        </thead>
        <tbody>
          {props.conditions.map((c) => (
            <tr key={c.type}>
              <th scope="row">{c.type}</th>
              <td>
                <StatusBadge ok={c.status === 'True'} text={c.status} />
              </td>
              <td>{c.reason ?? ''}</td>
              <td class="wrap">{c.message ?? ''}</td>
              <td>
                <Age time={c.lastTransitionTime} now={props.now} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function StatusBadge(props: { ok: boolean | undefined; text: string }) {
  const cls = props.ok === undefined ? 'badge' : props.ok ? 'badge ok' : 'badge bad';
  return <span class={cls}>{props.text}</span>;
}

export function Loading(props: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {props.what}…
    </p>
  );
}
