import { ErrorState } from "../../components/states";
import { type Tile, TileBody } from "./TileBody";

/** A dashboard's tiles on its 12-column grid (a phone stacks them in grid order). */
export function TileGrid({ tiles }: { tiles: Omit<Tile, "insightId">[] }) {
  return (
    <div className="dash-grid">
      {tiles.map((t, i) => (
        <section
          // Tiles are listed in grid order; a place on the grid is unique (tiles never overlap).
          key={`${t.x},${t.y}`}
          className="card dash-tile"
          aria-label={t.name}
          // Placement through the CSSOM (the CSP allows no inline style attribute).
          style={{ gridColumn: `${t.x + 1} / span ${t.w}`, gridRow: `${t.y + 1} / span ${t.h}` }}
          data-index={i}
        >
          <h2 className="dash-tile-title">{t.name}</h2>
          {t.description && <p className="muted small">{t.description}</p>}
          {t.answer ? (
            <TileBody name={t.name} answer={t.answer} />
          ) : (
            <ErrorState title="This insight cannot be shown" error={t.error?.message ?? "no result"} />
          )}
        </section>
      ))}
    </div>
  );
}
