import { Card, EmptyState, ErrorState, PageSkeleton } from "../../components/states";
import { type Flag, shortValue, useFlagHistory } from "./model";

type Entry = NonNullable<ReturnType<typeof useFlagHistory>["data"]>[number];

const FIELDS: (keyof Flag)[] = ["description", "valueType", "defaultValue", "enabled", "tags", "rules"];

/** What a change changed, field by field, in words. */
function changes(e: Entry): string[] {
  if (!e.before) return ["created"];
  if (!e.after) return ["deleted"];
  const out: string[] = [];
  for (const f of FIELDS) {
    const a = JSON.stringify(e.before[f]);
    const b = JSON.stringify(e.after[f]);
    if (a === b) continue;
    if (f === "rules")
      out.push(
        `rules: ${e.before.rules.length} → ${e.after.rules.length}${e.action === "shipped" ? " (a winner shipped)" : ""}`,
      );
    else if (f === "enabled") out.push(e.after.enabled ? "switched on" : "switched off (kill switch)");
    else out.push(`${f}: ${shortValue(e.before[f])} → ${shortValue(e.after[f])}`);
  }
  return out.length ? out : ["no visible change"];
}

/** Every change of the flag, newest first: who, when, what. */
export function FlagHistory({ flagKey }: { flagKey: string }) {
  const history = useFlagHistory(flagKey);
  return (
    <Card title="History">
      {history.isPending ? (
        <PageSkeleton label="Loading the history" />
      ) : history.isError ? (
        <ErrorState error={history.error} retry={() => void history.refetch()} />
      ) : history.data.length === 0 ? (
        <EmptyState title="No changes yet" />
      ) : (
        <ol className="timeline" data-testid="flag-history">
          {history.data.map((e) => (
            <li key={e.id}>
              <strong>{e.action}</strong> by{" "}
              {e.actor.type === "user" ? (e.actor.email ?? e.actor.id) : `API key ${e.actor.id}`}{" "}
              <span className="muted">{new Date(e.at).toLocaleString()}</span>
              <ul className="plain-list">
                {changes(e).map((c) => (
                  <li key={c}>{c}</li>
                ))}
              </ul>
              <details>
                <summary>Before and after</summary>
                <pre className="code">{JSON.stringify({ before: e.before, after: e.after }, null, 2)}</pre>
              </details>
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}
