/**
 * The YAML editor: the object as an apply configuration, applied with server-side apply (PATCH
 * application/apply-patch+yaml, fieldManager "setpoint-dashboard", fieldValidation=Strict). A
 * conflict (409: another manager owns a field you change) or a validation error (422) is shown in
 * place: the server's message, each cause with its field, and a marker on the field's line; a
 * conflict offers to apply with force (take the fields over).
 *
 * The editor never overwrites what you typed: when the object changes on the server while you
 * edit, it says so and lets you load the new version.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiStatusError, FIELD_MANAGER, errorText, objectPath, query } from '../api/client.js';
import type { ApiResource, KubeObject, StatusCause } from '../api/types.js';
import { applyConfiguration, lineOfField, yamlProblems, type YamlProblem } from '../api/yaml.js';
import { useClient } from '../hooks.js';

type Outcome =
  | { kind: 'applied'; resourceVersion: string | undefined; forced: boolean }
  | { kind: 'syntax'; problems: YamlProblem[] }
  | { kind: 'error'; error: unknown };

interface Marker {
  readonly line: number | undefined;
  readonly field?: string;
  readonly message: string;
}

export function YamlEditor(props: { id: string; resource: ApiResource; object: KubeObject; onClose: () => void }) {
  const client = useClient();
  const initial = useMemo(() => applyConfiguration(props.object), []); // the first version only
  const [text, setText] = useState(initial);
  const [base, setBase] = useState({ resourceVersion: props.object.metadata.resourceVersion, text: initial });
  const [serverChanged, setServerChanged] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  const dirty = text !== base.text;

  useEffect(() => area.current?.focus(), []);

  // The object changed on the server: follow it while nothing is edited; else say so.
  const rv = props.object.metadata.resourceVersion;
  useEffect(() => {
    if (rv === base.resourceVersion) return;
    if (!dirty) {
      const fresh = applyConfiguration(props.object);
      setText(fresh);
      setBase({ resourceVersion: rv, text: fresh });
      setServerChanged(false);
    } else {
      setServerChanged(true);
    }
  }, [rv]); // follows the server's resourceVersion only

  const loadServerVersion = () => {
    const fresh = applyConfiguration(props.object);
    setText(fresh);
    setBase({ resourceVersion: rv, text: fresh });
    setServerChanged(false);
    setOutcome(undefined);
  };

  const apply = async (force: boolean) => {
    const problems = yamlProblems(text);
    if (problems.length > 0) {
      setOutcome({ kind: 'syntax', problems });
      return;
    }
    setBusy(true);
    try {
      const path = objectPath(props.resource, props.object.metadata.namespace, props.object.metadata.name ?? '');
      const applied = await client.json<KubeObject>(path + query({ fieldManager: FIELD_MANAGER, fieldValidation: 'Strict', force: force ? true : undefined }), {
        method: 'PATCH',
        contentType: 'application/apply-patch+yaml',
        body: text,
      });
      const fresh = applyConfiguration(applied);
      setText(fresh);
      setBase({ resourceVersion: applied.metadata.resourceVersion, text: fresh });
      setServerChanged(false);
      setOutcome({ kind: 'applied', resourceVersion: applied.metadata.resourceVersion, forced: force });
    } catch (error) {
      setOutcome({ kind: 'error', error });
    } finally {
      setBusy(false);
    }
  };

  const markers: Marker[] = useMemo(() => {
    if (outcome?.kind === 'syntax') return outcome.problems.map((p) => ({ line: p.line, message: p.message }));
    if (outcome?.kind !== 'error' || !(outcome.error instanceof ApiStatusError)) return [];
    const causes: StatusCause[] = outcome.error.status.details?.causes ?? [];
    return causes.map((c) => ({ line: c.field ? lineOfField(text, c.field) : undefined, ...(c.field ? { field: c.field } : {}), message: c.message ?? c.reason ?? '' }));
  }, [outcome, text]);
  // Bring the first marked line into view (without taking the focus from where it is).
  useEffect(() => {
    const first = markers.find((m) => m.line !== undefined)?.line;
    const el = area.current;
    if (first === undefined || el === null) return;
    const lineHeight = parseFloat(getComputedStyle(el).lineHeight) || 18;
    el.scrollTop = Math.max(0, (first - 3) * lineHeight);
    if (gutter.current) gutter.current.scrollTop = el.scrollTop;
  }, [outcome]); // on a new outcome only, not on every keystroke
  const markedLines = new Map<number, string>();
  for (const m of markers) if (m.line !== undefined) markedLines.set(m.line, [markedLines.get(m.line), m.message].filter(Boolean).join('; '));

  const goToLine = (line: number) => {
    const el = area.current;
    if (el === null) return;
    const lines = el.value.split('\n');
    const start = lines.slice(0, line - 1).reduce((acc, l) => acc + l.length + 1, 0);
    el.focus();
    el.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
    const lineHeight = parseFloat(getComputedStyle(el).lineHeight) || 18;
    el.scrollTop = Math.max(0, (line - 3) * lineHeight);
    if (gutter.current) gutter.current.scrollTop = el.scrollTop;
  };

  const lineCount = text.split('\n').length;
  const error = outcome?.kind === 'error' ? outcome.error : undefined;
  const conflict = error instanceof ApiStatusError && error.code === 409 && error.reason === 'Conflict' && (error.status.details?.causes ?? []).some((c) => c.reason === 'FieldManagerConflict');

  return (
    <section id={props.id} class="editor" aria-labelledby={`${props.id}-h`}>
      <h2 id={`${props.id}-h`}>Edit YAML</h2>
      <p class="muted small">
        Applied with server-side apply as <code>{FIELD_MANAGER}</code>: fields you leave out stay as other managers set them. Ctrl+Enter applies.
      </p>
      {serverChanged ? (
        <div class="notice" role="status">
          The object changed on the server (resourceVersion {rv}) since you started editing.{' '}
          <button type="button" onClick={loadServerVersion}>
            Load the server's version
          </button>
        </div>
      ) : null}
      <div class="code-editor">
        <div class="gutter" ref={gutter} aria-hidden="true">
          {Array.from({ length: lineCount }, (_, i) => (
            <div key={i} class={markedLines.has(i + 1) ? 'gutter-line marked' : 'gutter-line'} title={markedLines.get(i + 1)}>
              {i + 1}
            </div>
          ))}
        </div>
        <textarea
          ref={area}
          aria-label="YAML configuration"
          aria-invalid={markers.length > 0}
          aria-describedby={`${props.id}-outcome`}
          spellcheck={false}
          autocapitalize="off"
          autocomplete="off"
          wrap="off"
          value={text}
          onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
          onScroll={(e) => {
            if (gutter.current) gutter.current.scrollTop = (e.currentTarget as HTMLTextAreaElement).scrollTop;
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              void apply(false);
            }
          }}
        />
      </div>
      <div class="actions">
        <button type="button" class="primary" disabled={busy} onClick={() => void apply(false)}>
          {busy ? 'Applying…' : 'Apply'}
        </button>
        <button type="button" disabled={busy || !dirty} onClick={loadServerVersion}>
          Reset
        </button>
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </div>
      <div id={`${props.id}-outcome`} aria-live="polite">
        {outcome?.kind === 'applied' ? (
          <p class="success" role="status">
            Applied{outcome.forced ? ' with force' : ''}: resourceVersion {outcome.resourceVersion}.
          </p>
        ) : null}
        {outcome?.kind === 'syntax' ? (
          <div class="error" role="alert">
            <strong>The YAML does not parse</strong>
            <MarkerList markers={markers} goToLine={goToLine} />
          </div>
        ) : null}
        {error !== undefined ? (
          <div class={conflict ? 'error conflict' : 'error'} role="alert">
            <strong>
              {conflict
                ? 'Conflict: another field manager owns fields you changed'
                : error instanceof ApiStatusError
                  ? `${error.reason ?? 'Error'} (${error.code})${error.code === 422 ? ': the server refused the object as invalid' : ''}`
                  : 'Apply failed'}
            </strong>
            <p class="server-message">{errorText(error)}</p>
            <MarkerList markers={markers} goToLine={goToLine} />
            {conflict ? (
              <>
                <p>
                  Set those fields back to the owner's values, leave them out of your configuration, or apply with force to take them over (the other manager may set them
                  back).
                </p>
                <button type="button" class="danger" disabled={busy} onClick={() => void apply(true)}>
                  Apply with force
                </button>
              </>
            ) : null}
          </div>
        ) : null}
      </div>
    </section>
  );
}

function MarkerList(props: { markers: readonly Marker[]; goToLine: (line: number) => void }) {
  if (props.markers.length === 0) return null;
  return (
    <ul class="causes">
      {props.markers.map((m, i) => (
        <li key={i}>
          {m.line !== undefined ? (
            <button type="button" class="link" onClick={() => props.goToLine(m.line!)}>
              line {m.line}
            </button>
          ) : null}{' '}
          {m.field ? <code>{m.field}</code> : null} {m.message}
        </li>
      ))}
    </ul>
  );
}
