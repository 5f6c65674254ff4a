import { Link, Route, Routes, useSearchParams } from "react-router";
import { PageHeader } from "../../components/states";
import { kindLabel } from "./kinds";
import { ConnectorList } from "./ConnectorList";
import { MetricsPage } from "./MetricsPage";

/** Why a connection failed, by the `?error=` code the OAuth callback sends back. */
const ERRORS: Record<string, string> = {
  access_denied: "the consent was declined on the platform.",
  consent_failed: "the platform reported an error on its consent screen.",
  invalid_state: "the sign-in link was invalid or expired; start again.",
  state_used: "that sign-in link was already used; start again.",
  session_mismatch:
    "this connection was started in another browser or by another user; nothing was stored. Start it again here, signed in.",
  missing_code: "the platform sent no authorization code.",
  not_configured: "this platform's OAuth client is not configured on the server.",
  exchange_failed: "the platform refused to exchange the authorization code.",
  account_failed: "the platform's account could not be read.",
  unknown_connector: "unknown connector.",
  server_error: "the server failed while completing the connection.",
};

/** Integrations: the seven connector kinds (connect, sync, disconnect) and per-connector metrics. */
export default function IntegrationsPage() {
  return (
    <Routes>
      <Route index element={<Overview />} />
      <Route path=":type" element={<MetricsPage />} />
    </Routes>
  );
}

function Overview() {
  const [params] = useSearchParams();
  const connected = params.get("connected");
  const error = params.get("error");
  return (
    <>
      <PageHeader title="Integrations" />
      {connected && (
        <div className="callout ok" role="status">
          Connected {kindLabel(connected)}.{" "}
          <Link to={`/integrations/${encodeURIComponent(connected)}`}>See its metrics</Link>
        </div>
      )}
      {error && (
        <div className="callout error" role="alert">
          Could not connect: {ERRORS[error] ?? error}
        </div>
      )}
      <ConnectorList />
    </>
  );
}
