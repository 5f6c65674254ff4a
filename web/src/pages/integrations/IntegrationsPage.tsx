import { useSearchParams } from "react-router";
import { ComingSoonPage } from "../coming-soon/ComingSoonPage";

/**
 * Where the OAuth callback sends the browser (`/integrations?connected=<type>` or `?error=…`):
 * the outcome is shown here until the integrations area replaces this page.
 */
export default function IntegrationsPage() {
  const [params] = useSearchParams();
  const connected = params.get("connected");
  const error = params.get("error");
  return (
    <>
      {connected && (
        <div className="callout ok" role="status">
          Connected {connected.replaceAll("_", " ")}.
        </div>
      )}
      {error && (
        <div className="callout error" role="alert">
          Could not connect: {error}
        </div>
      )}
      <ComingSoonPage title="Integrations" />
    </>
  );
}
