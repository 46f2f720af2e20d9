/** A list that renders only the rows in view: thousands of records scroll without freezing. */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";

/** Fixed-height rows; `height` is the viewport in pixels. */
export function VirtualList<T>(props: { items: T[]; rowHeight: number; height: number; label: string; row(item: T, index: number): ComponentChildren }) {
  const [top, setTop] = useState(0);
  const { items, rowHeight, height } = props;
  const first = Math.max(0, Math.floor(top / rowHeight) - 5);
  const last = Math.min(items.length, Math.ceil((top + height) / rowHeight) + 5);
  return (
    <div class="vlist" style={{ height: `${Math.min(height, items.length * rowHeight) + 2}px` }} onScroll={(e) => setTop(e.currentTarget.scrollTop)} role="list" aria-label={props.label}>
      <div style={{ height: `${items.length * rowHeight}px`, position: "relative" }}>
        {items.slice(first, last).map((item, i) => (
          <div role="listitem" class="vrow" style={{ position: "absolute", top: `${(first + i) * rowHeight}px`, height: `${rowHeight}px`, left: 0, right: 0 }}>
            {props.row(item, first + i)}
          </div>
        ))}
      </div>
    </div>
  );
}
