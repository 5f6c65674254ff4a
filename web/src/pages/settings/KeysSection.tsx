import { api, call } from "../../api/client";
import { KeyManager } from "../../components/KeyManager";
import { settingsKeys } from "./model";

/** A project's secret API keys. */
export function KeysSection({ project }: { project: { id: string; name: string } }) {
  const path = { id: project.id };
  return (
    <KeyManager
      title={`API keys of ${project.name}`}
      intro={
        <>
          Secret keys for servers and SDKs (<code>x-api-key</code>). Never put them in a web page.
        </>
      }
      noun={{ table: "API keys", empty: "No API keys", form: "Create an API key" }}
      queryKey={settingsKeys.projectKeys(project.id)}
      list={() => call(api.GET("/api/projects/{id}/keys", { params: { path } }))}
      create={(name) => call(api.POST("/api/projects/{id}/keys", { params: { path }, body: { name } }))}
      revoke={(keyId) =>
        call(api.DELETE("/api/projects/{id}/keys/{keyId}", { params: { path: { ...path, keyId } } }))
      }
      rawKeyTestId="raw-key"
    />
  );
}
