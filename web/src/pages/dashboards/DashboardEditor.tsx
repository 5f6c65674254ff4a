import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { api, call } from "../../api/client";
import { SelectField } from "../../components/Field";
import { ErrorState } from "../../components/states";
import { type GridItem, type TileDraft, WIDTHS, flow, inOrder } from "./layout";
import { useInsights } from "../../components/insights";
import { dashboardKeys } from "./model";

/** Edits a dashboard's tiles: add a saved insight, set widths and heights, reorder, remove; then save. */
export function DashboardEditor({
  id,
  items,
  onDone,
}: {
  id: string;
  items: GridItem[];
  onDone: () => void;
}) {
  const queryClient = useQueryClient();
  const insights = useInsights();
  // Each tile a key of its own while editing (the same insight may be on the grid twice).
  const nextKey = useRef(0);
  const keyed = (t: TileDraft) => ({ ...t, key: nextKey.current++ });
  const [tiles, setTiles] = useState(() => inOrder(items).map(keyed));
  const [adding, setAdding] = useState("");
  const names = new Map((insights.data?.items ?? []).map((i) => [i.id, i.name]));
  const save = useMutation({
    mutationFn: () =>
      call(
        api.PATCH("/api/dashboards/{id}", {
          params: { path: { id } },
          body: { items: flow(tiles.map(({ key: _key, ...t }) => t)) },
        }),
      ),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: dashboardKeys.one(id) });
      void queryClient.invalidateQueries({ queryKey: dashboardKeys.list });
      onDone();
    },
  });
  const set = (i: number, patch: Partial<TileDraft>) =>
    setTiles(tiles.map((t, k) => (k === i ? { ...t, ...patch } : t)));
  const move = (i: number, by: number) => {
    const next = [...tiles];
    const [t] = next.splice(i, 1);
    next.splice(i + by, 0, t!);
    setTiles(next);
  };

  return (
    <section className="card dash-editor" aria-label="Edit tiles">
      <h2>Tiles</h2>
      {tiles.length === 0 && <p className="muted">No tile yet: add a saved insight below.</p>}
      <ol className="tile-list">
        {tiles.map((t, i) => {
          const name = names.get(t.insightId) ?? t.insightId;
          return (
            <li key={t.key} className="form-row">
              <strong className="tile-name">{name}</strong>
              <SelectField
                label={`Width of ${name}`}
                value={String(t.w)}
                onChange={(e) => set(i, { w: Number(e.target.value) })}
                options={WIDTHS}
              />
              <SelectField
                label={`Height of ${name}`}
                value={String(t.h)}
                onChange={(e) => set(i, { h: Number(e.target.value) })}
                options={[
                  { value: "1", label: "One row" },
                  { value: "2", label: "Two rows" },
                ]}
              />
              <span className="actions">
                <button
                  type="button"
                  className="button secondary small"
                  disabled={i === 0}
                  onClick={() => move(i, -1)}
                >
                  Move {name} up
                </button>
                <button
                  type="button"
                  className="button secondary small"
                  disabled={i === tiles.length - 1}
                  onClick={() => move(i, 1)}
                >
                  Move {name} down
                </button>
                <button
                  type="button"
                  className="button danger small"
                  onClick={() => setTiles(tiles.filter((_, k) => k !== i))}
                >
                  Remove {name}
                </button>
              </span>
            </li>
          );
        })}
      </ol>
      <div className="form-row">
        <SelectField
          label="Add a saved insight"
          value={adding}
          onChange={(e) => setAdding(e.target.value)}
          options={[
            { value: "", label: insights.data?.items.length ? "Choose an insight" : "No saved insight yet" },
            ...(insights.data?.items ?? []).map((i) => ({ value: i.id, label: i.name })),
          ]}
        />
        <button
          type="button"
          className="button secondary"
          disabled={!adding || tiles.length >= 24}
          onClick={() => {
            setTiles([...tiles, keyed({ insightId: adding, w: 6, h: 1 })]);
            setAdding("");
          }}
        >
          Add tile
        </button>
      </div>
      <div className="actions">
        <button type="button" className="button" disabled={save.isPending} onClick={() => save.mutate()}>
          Save tiles
        </button>
        <button type="button" className="button secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
      {save.isError && <ErrorState title="Not saved" error={save.error} />}
    </section>
  );
}
