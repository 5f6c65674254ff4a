import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, call } from "../../api/client";
import { currentProjectId } from "../../api/project";
import { useMe, useProjects } from "../../api/session";
import { CopyCode } from "../../components/CopyButton";
import { serverHost } from "../../components/snippet";
import { Card, ErrorState } from "../../components/states";
import { flagKeys, useFlagSettings } from "./model";
import { Switch } from "./Switch";

/** How the project's SDKs connect: the client key (for admins, who see keys) and remote evaluation only. */
export function SdkSettings() {
  const me = useMe();
  const isAdmin = me.data?.user.role === "admin";
  const projects = useProjects(isAdmin);
  const project = projects.data?.find((p) => p.id === currentProjectId()) ?? projects.data?.[0];
  const settings = useFlagSettings();
  const queryClient = useQueryClient();
  const put = useMutation({
    mutationFn: (remoteEvalOnly: boolean) =>
      call(api.PUT("/api/flag-settings", { body: { remoteEvalOnly } })),
    onSuccess: (saved) => queryClient.setQueryData(flagKeys.settings, saved),
  });
  const code = project
    ? `new GrowthBook({ apiHost: "${serverHost()}", clientKey: "${project.publicKey}" })`
    : "";
  return (
    <Card title="SDK connection">
      <p className="muted">
        Any GrowthBook SDK (or OpenFeature with GrowthBook's provider) reads these flags: point its{" "}
        <code>apiHost</code> at this server and use the project's public key as <code>clientKey</code>.
      </p>
      {project && <CopyCode code={code} label="Copy SDK setup" testId="sdk-snippet" />}
      {project && settings.data && (
        <ServerSdkSetup publicKey={project.publicKey} salt={settings.data.targetingSalt} />
      )}
      {settings.isError ? (
        <ErrorState error={settings.error} retry={() => void settings.refetch()} />
      ) : (
        <Switch
          checked={settings.data?.remoteEvalOnly ?? false}
          disabled={settings.isPending || put.isPending}
          onChange={(on) => put.mutate(on)}
          label="Remote evaluation only"
          hint="SDKs must use remoteEval: true, so no client sees the rules (the payload endpoint then refuses)."
        />
      )}
      {put.isError && <ErrorState title="Not changed" error={put.error} />}
    </Card>
  );
}

/**
 * A server SDK with the secret key gets cohorts in hashed form and so evaluates cohort rules
 * locally; the application hashes the ids with the project's salt (docs/flags.md).
 */
function ServerSdkSetup({ publicKey, salt }: { publicKey: string; salt: string }) {
  const code = [
    "const gb = new GrowthBookClient({",
    `  apiHost: "${serverHost()}", clientKey: "${publicKey}",`,
    '  apiHostRequestHeaders: { Authorization: "Bearer " + process.env.LIFT_SECRET_KEY },',
    "});",
    `const hash = (id) => createHash("sha256").update("${salt}" + id).digest("hex");`,
    "gb.evalFeature(key, { attributes: { id, idHash: hash(id), leadId, leadIdHash: hash(leadId) } });",
  ].join("\n");
  return (
    <>
      <p className="muted">
        On a server, send the secret key as well: cohort rules then evaluate locally, with cohort members only
        as salted hashes. Keep the salt on your servers.
      </p>
      <CopyCode code={code} label="Copy server SDK setup" testId="server-sdk-snippet" />
    </>
  );
}
