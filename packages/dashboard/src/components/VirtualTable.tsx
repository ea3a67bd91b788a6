/**
 * VirtualTable: a grid that renders only the rows in view (plus a few), so 10,000 rows cost what
 * forty do. Rows have one fixed height; the scroll height is rows × height.
 *
 * Keyboard: the grid is one tab stop; ↑ ↓ Page Up/Down Home End move the active row (announced
 * through aria-activedescendant, scrolled into view), Enter opens it. Columns that do not fit a
 * narrow window are dropped from the end (the first always stays).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { navigate } from '../router.js';

export interface VirtualColumn<R> {
  readonly key: string;
  readonly title: string;
  /** CSS grid track, e.g. "minmax(12rem, 2fr)". */
  readonly track: string;
  /** Narrowest width it is worth showing at, px. */
  readonly minPx: number;
  readonly render: (row: R) => ComponentChildren;
}

export interface VirtualTableProps<R> {
  readonly rows: readonly R[];
  readonly columns: readonly VirtualColumn<R>[];
  readonly rowKey: (row: R) => string;
  /** Where Enter or a click on a row goes. */
  readonly rowHref: (row: R) => string | undefined;
  readonly label: string;
  readonly rowHeight?: number;
  readonly empty?: ComponentChildren;
}

const OVERSCAN = 6;
let nextId = 0;

export function VirtualTable<R>(props: VirtualTableProps<R>) {
  const rowHeight = props.rowHeight ?? 32;
  const scroller = useRef<HTMLDivElement>(null);
  const [idPrefix] = useState(() => `vt${nextId++}`);
  const [view, setView] = useState({ top: 0, height: 600, width: 1000 });
  const [active, setActive] = useState(-1);
  const count = props.rows.length;

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el === null) return undefined;
    const measure = () => setView((v) => ({ ...v, height: el.clientHeight, width: el.clientWidth }));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  // Keep the active row inside the list when rows go away.
  useEffect(() => {
    if (active >= count) setActive(count - 1);
  }, [count, active]);

  const columns = fitColumns(props.columns, view.width);
  const template = columns.map((c) => c.track).join(' ');
  const bodyHeight = Math.max(0, view.height - rowHeight);
  const first = Math.max(0, Math.floor(view.top / rowHeight) - OVERSCAN);
  const last = Math.min(count, Math.ceil((view.top + bodyHeight) / rowHeight) + OVERSCAN);

  const reveal = (index: number) => {
    const el = scroller.current;
    if (el === null) return;
    const top = index * rowHeight;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + rowHeight > el.scrollTop + bodyHeight) el.scrollTop = top + rowHeight - bodyHeight;
  };
  const move = (index: number) => {
    if (count === 0) return;
    const next = Math.max(0, Math.min(count - 1, index));
    setActive(next);
    reveal(next);
  };
  const open = (index: number) => {
    const row = props.rows[index];
    const href = row === undefined ? undefined : props.rowHref(row);
    if (href !== undefined) navigate(href);
  };
  const page = Math.max(1, Math.floor(bodyHeight / rowHeight) - 1);
  const onKeyDown = (e: KeyboardEvent) => {
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(active + 1),
      ArrowUp: () => move(active - 1),
      PageDown: () => move(active + page),
      PageUp: () => move(active - page),
      Home: () => move(0),
      End: () => move(count - 1),
      Enter: () => active >= 0 && open(active),
    };
    const action = keys[e.key];
    if (action === undefined) return;
    e.preventDefault();
    action();
  };

  const rows: ComponentChildren[] = [];
  for (let i = first; i < last; i++) {
    const row = props.rows[i]!;
    rows.push(
      <div
        key={props.rowKey(row)}
        id={`${idPrefix}-${i}`}
        role="row"
        aria-rowindex={i + 2}
        aria-selected={i === active}
        class={i === active ? 'vt-row vt-active' : 'vt-row'}
        style={{ transform: `translateY(${i * rowHeight}px)`, gridTemplateColumns: template, height: `${rowHeight}px` }}
        onClick={() => {
          setActive(i);
          open(i);
        }}
      >
        {columns.map((c) => (
          <div role="gridcell" class="vt-cell" key={c.key}>
            {c.render(row)}
          </div>
        ))}
      </div>,
    );
  }

  return (
    <div
      ref={scroller}
      class="vt"
      role="grid"
      tabIndex={0}
      aria-label={props.label}
      aria-rowcount={count + 1}
      aria-colcount={columns.length}
      aria-activedescendant={active >= 0 && active < count ? `${idPrefix}-${active}` : undefined}
      onKeyDown={onKeyDown}
      onFocus={() => active < 0 && count > 0 && move(0)}
      onScroll={(e) => {
        const top = (e.currentTarget as HTMLDivElement).scrollTop;
        setView((v) => (v.top === top ? v : { ...v, top }));
      }}
    >
      <div role="row" aria-rowindex={1} class="vt-row vt-head" style={{ gridTemplateColumns: template, height: `${rowHeight}px` }}>
        {columns.map((c) => (
          <div role="columnheader" class="vt-cell" key={c.key}>
            {c.title}
          </div>
        ))}
      </div>
      <div class="vt-body" role="presentation" style={{ height: `${count * rowHeight}px` }}>
        {rows}
      </div>
      {count === 0 && props.empty !== undefined ? <div class="vt-empty">{props.empty}</div> : null}
    </div>
  );
}

/** The columns that fit `width` px, dropping from the end; the first always stays. */
function fitColumns<R>(columns: readonly VirtualColumn<R>[], width: number): VirtualColumn<R>[] {
  const out: VirtualColumn<R>[] = [];
  let used = 0;
  for (const c of columns) {
    if (out.length > 0 && used + c.minPx > width) break;
    out.push(c);
    used += c.minPx;
  }
  return out;
}
