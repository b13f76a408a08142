/**
 * Drag-and-drop reordering of a list with the browser's own drag events: a grip starts the drag,
 * each item is a drop target that shows a line above or below it, and a drop calls `onMove(from, to)`
 * with `to` the index the item ends at. The ↑/↓ buttons stay the keyboard path (a grip is not focusable).
 */
import { type DragEvent, useState } from 'react';

export interface DropMark {
  index: number;
  after: boolean;
}

/** Where an item dropped on `target` (above or below its middle) ends up once `from` is taken out. */
export function dropIndex(from: number, target: number, after: boolean): number {
  const slot = after ? target + 1 : target;
  return slot > from ? slot - 1 : slot;
}

export function useDragReorder(onMove: (from: number, to: number) => void, disabled = false) {
  const [from, setFrom] = useState<number | null>(null);
  const [mark, setMark] = useState<DropMark | null>(null);
  const end = () => {
    setFrom(null);
    setMark(null);
  };
  return {
    dragging: from,
    mark,
    /** props for the grip of item `index`; `card` is the element shown while dragging */
    handle: (index: number, card: () => HTMLElement | null) => ({
      draggable: !disabled,
      onDragStart: (e: DragEvent) => {
        e.dataTransfer.effectAllowed = 'move';
        e.dataTransfer.setData('text/plain', String(index));
        const el = card();
        if (el) e.dataTransfer.setDragImage(el, 16, 16);
        setFrom(index);
      },
      onDragEnd: end,
    }),
    /** props for item `index` as a drop target */
    target: (index: number) => ({
      onDragOver: (e: DragEvent) => {
        if (from === null) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'move';
        const box = (e.currentTarget as HTMLElement).getBoundingClientRect();
        const after = e.clientY > box.top + box.height / 2;
        if (mark?.index !== index || mark.after !== after) setMark({ index, after });
      },
      onDrop: (e: DragEvent) => {
        if (from === null) return;
        e.preventDefault();
        const box = (e.currentTarget as HTMLElement).getBoundingClientRect();
        const to = dropIndex(from, index, e.clientY > box.top + box.height / 2);
        end();
        if (to !== from) onMove(from, to);
      },
    }),
    /** class for item `index`: the drop line, and the dragged item dimmed */
    className: (index: number): string =>
      [from === index ? 'dragging' : '', mark?.index === index ? (mark.after ? 'drop-after' : 'drop-before') : '']
        .filter(Boolean)
        .join(' '),
  };
}

/** The list with the item at `from` moved to `to`. */
export function moved<T>(list: readonly T[], from: number, to: number): T[] {
  const out = [...list];
  const [item] = out.splice(from, 1);
  out.splice(to, 0, item);
  return out;
}
