import { api, call } from "../../api/client";
import { KeyManager } from "../../components/KeyManager";
import { emailKeys } from "./model";

/** Transactional API keys (workspace-wide). */
export function KeysSection() {
  return (
    <KeyManager
      title="Transactional API keys"
      intro={
        <>
          Keys for <code>POST /api/v1/transactional/send</code> (<code>Authorization: Bearer …</code>). They
          send from the whole workspace: keep them on your servers.
        </>
      }
      noun={{
        table: "Transactional API keys",
        empty: "No transactional keys",
        form: "Create a transactional key",
      }}
      queryKey={emailKeys.keys}
      list={() => call(api.GET("/api/transactional-api-keys"))}
      create={(name) => call(api.POST("/api/transactional-api-keys", { body: { name } }))}
      revoke={(keyId) =>
        call(api.DELETE("/api/transactional-api-keys/{keyId}", { params: { path: { keyId } } }))
      }
      rawKeyTestId="tx-raw-key"
    />
  );
}
