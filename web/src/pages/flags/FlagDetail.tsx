import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "react-router";
import { api, call } from "../../api/client";
import { ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { EvaluatePanel } from "./EvaluatePanel";
import { FlagEditor } from "./FlagEditor";
import { FlagHistory } from "./FlagHistory";
import { attributesIn, flagKeys, useFlag, useFlags } from "./model";

/** One flag: its definition (editable), "evaluate for a user", and its history. */
export function FlagDetail() {
  const { key } = useParams();
  const flag = useFlag(key);
  const all = useFlags();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => call(api.DELETE("/api/flags/{key}", { params: { path: { key: key! } } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: flagKeys.all });
      navigate("/flags");
    },
  });

  if (flag.isPending) return <PageSkeleton label="Loading the flag" />;
  if (flag.isError) return <ErrorState error={flag.error} retry={() => void flag.refetch()} />;
  const f = flag.data;
  return (
    <>
      <PageHeader title={f.key}>
        <span className={`badge ${f.enabled ? "status-active" : "status-disabled"}`} data-testid="flag-state">
          {f.enabled ? "on" : "off"}
        </span>
        <Link className="button secondary" to="/flags">
          All flags
        </Link>
        <button
          type="button"
          className="button danger"
          disabled={remove.isPending}
          onClick={() => {
            if (window.confirm(`Delete ${f.key}? SDKs then no longer get it (its history is kept).`))
              remove.mutate();
          }}
        >
          Delete
        </button>
      </PageHeader>
      {remove.isError && <ErrorState title="Not deleted" error={remove.error} />}
      <FlagEditor flag={f} />
      <EvaluatePanel flag={f} attributes={attributesIn(all.data)} />
      <FlagHistory flagKey={f.key} />
    </>
  );
}
