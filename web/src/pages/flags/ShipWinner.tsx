import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link } from "react-router";
import { api, call } from "../../api/client";
import { Card, ErrorState } from "../../components/states";
import { flagKeys, shortValue, useFlags } from "./model";

interface ExperimentLike {
  id: string;
  status: string;
  winner: string | null;
  variants: { name: string }[];
}

/** What shipping changes, asked before it is done: the rule stops the experiment for good. */
export const shipQuestion = (flag: string, rule: number, winner: string, value: string) =>
  `Ship ${winner}? rule ${rule} of ${flag} stops running the experiment and serves ${value} (${winner}) to everyone it matches. The other variants are no longer served; this shows in the flag's history.`;

/**
 * On an experiment's results page: the flags whose rules run this experiment, what each variant
 * serves, and — once it completed with a winner — "Ship the winner": the rule becomes a force rule
 * serving the winner's value, once the team confirms what that changes.
 */
export function ShipWinner({ experiment }: { experiment: ExperimentLike }) {
  const flags = useFlags(experiment.id);
  const queryClient = useQueryClient();
  const ship = useMutation({
    mutationFn: ({ key, ruleId }: { key: string; ruleId: string }) =>
      call(api.POST("/api/flags/{key}/rules/{ruleId}/ship", { params: { path: { key, ruleId } }, body: {} })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: flagKeys.all }),
  });
  // After shipping, the flag no longer runs the experiment: the card stays to say so.
  if (!flags.data?.length && !ship.isSuccess) return null;
  const winner = experiment.status === "completed" ? experiment.winner : null;
  return (
    <Card title="Feature flags running this experiment">
      {ship.isError && <ErrorState title="Not shipped" error={ship.error} />}
      <ul className="plain-list">
        {(flags.data ?? []).flatMap((f) =>
          f.rules.flatMap((r, i) =>
            r.type !== "experiment" || r.experimentId !== experiment.id
              ? []
              : [
                  <li key={`${f.key}-${r.id}`} className="ship-row">
                    <Link to={`/flags/${encodeURIComponent(f.key)}`}>{f.key}</Link>, rule {i + 1}:{" "}
                    {experiment.variants
                      .map((v, j) => `${v.name} → ${shortValue(r.variations[j])}`)
                      .join(", ")}
                    {winner ? (
                      <button
                        type="button"
                        className="button small"
                        disabled={ship.isPending}
                        onClick={() => {
                          const index = experiment.variants.findIndex((v) => v.name === winner);
                          const value = shortValue(r.variations[index]);
                          if (window.confirm(shipQuestion(f.key, i + 1, winner, value)))
                            ship.mutate({ key: f.key, ruleId: r.id });
                        }}
                      >
                        Ship the winner ({winner}) in {f.key}
                      </button>
                    ) : (
                      <span className="muted small">
                        {" "}
                        {experiment.status === "completed"
                          ? "— completed without a winner: the rule serves nothing; ship a variant from the flag."
                          : "— the winner can be shipped once the experiment completes with one."}
                      </span>
                    )}
                  </li>,
                ],
          ),
        )}
      </ul>
      {ship.isSuccess && (
        <p role="status" className="ok-text">
          Shipped: {ship.data.key} now serves the winner's value to everyone its rule matches.
        </p>
      )}
    </Card>
  );
}
