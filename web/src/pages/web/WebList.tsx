import { DataTable } from "../../components/DataTable";
import { valueLabel } from "../../components/channels";
import { useFilter } from "../../components/filter";
import { Card, EmptyState } from "../../components/states";
import { type WebAnswer, type WebListName, type WebRow, conditionOf, useParam } from "./model";

export interface Tab {
  list: WebListName;
  label: string;
}

const shortPage = (v: string) => v.replace(/^https?:\/\/[^/]+/, "") || "/";
const labelOf = (list: WebListName, v: string) =>
  list === "pages" || list === "entry_pages" || list === "exit_pages"
    ? shortPage(v)
    : valueLabel(list === "channels" ? "channel" : list, v);

/** A card of lists as tabs (Plausible's "Top sources", "Top pages" …); each row adds itself to the filter. */
export function WebList({
  title,
  param,
  tabs,
  lists,
}: {
  title: string;
  /** the URL parameter holding the tab shown */
  param: string;
  tabs: Tab[];
  lists: WebAnswer["lists"];
}) {
  const [shown, setShown] = useParam(
    param,
    tabs.map((t) => t.list),
    tabs[0]!.list,
  );
  const tab = tabs.find((t) => t.list === shown)!;
  const filter = useFilter();
  const list = lists[shown];
  const pages = shown === "pages";
  const pick = (row: WebRow) => {
    const c = conditionOf(shown, row.value);
    filter.set([...filter.conditions.filter((x) => x.key !== c.key || c.op !== "is"), c].slice(-10));
  };
  return (
    <Card
      title={title}
      actions={
        tabs.length > 1 && (
          <fieldset className="segmented">
            <legend className="visually-hidden">{`${title}: show`}</legend>
            {tabs.map((t) => (
              <label key={t.list} className={t.list === shown ? "on" : undefined}>
                <input
                  type="radio"
                  name={`web-${param}`}
                  value={t.list}
                  checked={t.list === shown}
                  onChange={() => setShown(t.list)}
                />
                {t.label}
              </label>
            ))}
          </fieldset>
        )
      }
    >
      {!list || list.rows.length === 0 ? (
        <EmptyState title="Nothing here yet">No visits with a value for this in the period.</EmptyState>
      ) : (
        <DataTable
          caption={tab.label}
          rows={list.rows}
          rowKey={(r) => r.value}
          columns={[
            {
              header: tab.label,
              cell: (r) => (
                <button
                  type="button"
                  className="link-button"
                  title={`Filter the view to ${tab.label.toLowerCase()} ${r.value}`}
                  onClick={() => pick(r)}
                >
                  {labelOf(shown, r.value)}
                </button>
              ),
              csv: (r) => r.value,
            },
            {
              header: "Visitors",
              numeric: true,
              cell: (r) => r.visitors.toLocaleString(),
              csv: (r) => r.visitors,
            },
            pages
              ? {
                  header: "Pageviews",
                  numeric: true,
                  cell: (r) => r.pageviews.toLocaleString(),
                  csv: (r) => r.pageviews,
                }
              : {
                  header: "Visits",
                  numeric: true,
                  cell: (r) => r.visits.toLocaleString(),
                  csv: (r) => r.visits,
                },
          ]}
        />
      )}
      {list?.more && <p className="muted">{`Top ${list.rows.length} shown.`}</p>}
    </Card>
  );
}
