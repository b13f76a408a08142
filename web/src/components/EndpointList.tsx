/**
 * A project's endpoints as a list. Up to VIRTUAL_FROM rows it is a plain list; past that only the
 * rows near the window's view are in the page (`@tanstack/react-virtual` on the window's scroll, rows
 * measured as they render, since a long path wraps), so a project of thousands of endpoints stays a
 * light page. Each row says its place (`aria-posinset`/`aria-setsize`) for screen readers.
 */
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useLayoutEffect, useRef, useState } from 'react';
import { Link, paths } from '../router';
import type { Endpoint } from '../types';
import { MethodBadge, StatusBadge } from './ui';

export const VIRTUAL_FROM = 100;
/** px: a one-line row (.endpoint-row), the estimate before a row is measured */
const ROW_ESTIMATE = 53;

interface RowProps {
  e: Endpoint;
  projectId: string;
  onDuplicate: (e: Endpoint) => void;
  onDelete: (e: Endpoint) => void;
}

function RowContent({ e, projectId, onDuplicate, onDelete }: RowProps) {
  return (
    <>
      <MethodBadge method={e.method} />
      <Link href={paths.endpoint(projectId, e.id)} className="endpoint-path">
        {e.path}
      </Link>
      <StatusBadge code={e.statusCode} />
      <span className="muted small ct">{e.contentType}</span>
      <span className="row-actions">
        <button
          type="button"
          className="btn btn-small btn-ghost"
          aria-label={`Duplicate endpoint ${e.method} ${e.path}`}
          onClick={() => onDuplicate(e)}
        >
          Duplicate
        </button>
        <button
          type="button"
          className="btn btn-small btn-danger-ghost"
          aria-label={`Delete endpoint ${e.method} ${e.path}`}
          onClick={() => onDelete(e)}
        >
          Delete
        </button>
      </span>
    </>
  );
}

interface ListProps {
  list: Endpoint[];
  projectId: string;
  onDuplicate: (e: Endpoint) => void;
  onDelete: (e: Endpoint) => void;
}

export function EndpointList(props: ListProps) {
  if (props.list.length >= VIRTUAL_FROM) return <VirtualEndpointList {...props} />;
  const { list, ...rest } = props;
  return (
    <ul className="endpoint-list" aria-label="Endpoints">
      {list.map((e) => (
        <li key={e.id} className="endpoint-row">
          <RowContent e={e} {...rest} />
        </li>
      ))}
    </ul>
  );
}

function VirtualEndpointList({ list, ...rest }: ListProps) {
  const ref = useRef<HTMLUListElement>(null);
  // where the list starts on the page (the header, the form and the search bar are above it)
  const [margin, setMargin] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el) setMargin(el.getBoundingClientRect().top + window.scrollY);
  });
  const rows = useWindowVirtualizer({
    count: list.length,
    estimateSize: () => ROW_ESTIMATE,
    overscan: 8,
    scrollMargin: margin,
    getItemKey: (i) => list[i].id,
  });
  return (
    <ul
      ref={ref}
      className="endpoint-list virtual-list"
      aria-label="Endpoints"
      style={{ height: rows.getTotalSize(), position: 'relative' }}
    >
      {rows.getVirtualItems().map((v) => {
        const e = list[v.index];
        return (
          <li
            key={v.key}
            ref={rows.measureElement}
            data-index={v.index}
            className="endpoint-row"
            aria-setsize={list.length}
            aria-posinset={v.index + 1}
            style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${v.start - margin}px)` }}
          >
            <RowContent e={e} {...rest} />
          </li>
        );
      })}
    </ul>
  );
}
