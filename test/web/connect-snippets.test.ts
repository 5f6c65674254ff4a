import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SECRET_PLACEHOLDER, families } from "../../web/src/pages/connect/snippets.js";
import { liftSnippet } from "../../web/src/components/snippet.js";

/**
 * The Connect page's setup lines: this project's host and public key where each SDK reads them,
 * a placeholder where a secret key goes (secret keys are never shown again), and every line as
 * the guide in docs/ has it (the guides' examples are the tested ones).
 */
const HOST = "https://analytics.shop.test";
const KEY = "svc_pk_0123456789abcdef";
const snippet = (id: string) => {
  const found = families.flatMap((f) => f.snippets).find((s) => s.id === id);
  if (!found) throw new Error(`no snippet ${id}`);
  return found;
};
const text = (id: string) => snippet(id).code(HOST, KEY);
const quoted = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("connect snippets", () => {
  it("lists the six families, each with a doc and at least one snippet", () => {
    expect(families.map((f) => f.id)).toEqual([
      "lift",
      "posthog",
      "segment",
      "growthbook",
      "openfeature",
      "mcp",
    ]);
    for (const f of families) {
      expect(f.snippets.length).toBeGreaterThan(0);
      expect(f.guide).toMatch(/^(README|docs\/[a-z]+)\.md$/);
    }
  });

  it("Lift's snippet is the one the dashboard already shows", () => {
    expect(text("lift")).toBe(`<script src="${HOST}/api/svc-js?key=${KEY}"></script>`);
    expect(text("lift")).toBe(liftSnippet(HOST, KEY));
  });

  it("puts the host and the public key where each browser SDK reads them", () => {
    expect(text("posthog-js")).toContain(`posthog.init("${KEY}", { api_host: "${HOST}"`);
    expect(text("segment-browser")).toContain(`writeKey: "${KEY}", cdnURL: "${HOST}"`);
    expect(text("growthbook")).toContain(`apiHost: "${HOST}",\n  clientKey: "${KEY}",`);
    expect(text("ofrep-server")).toContain(`baseUrl: "${HOST}", headers: { Authorization: "Bearer ${KEY}" }`);
    expect(text("ofrep-web")).toMatch(
      new RegExp(`baseUrl: "${quoted(HOST)}",\\n.*\\[\\["Authorization", "Bearer ${KEY}"\\]\\]`),
    );
  });

  it("puts the host where each server SDK reads it and a placeholder, never a key, for the secret", () => {
    expect(text("posthog-node")).toContain(`new PostHog("${SECRET_PLACEHOLDER}", { host: "${HOST}" })`);
    expect(text("segment-node")).toContain(
      `writeKey: "${SECRET_PLACEHOLDER}", host: "${HOST}", path: "/v1/batch"`,
    );
    expect(text("rudderstack-node")).toContain(
      `new Analytics("${SECRET_PLACEHOLDER}", { dataPlaneUrl: "${HOST}" })`,
    );
    const mcp = JSON.parse(text("mcp"));
    expect(mcp.mcpServers.lift).toEqual({
      type: "http",
      url: `${HOST}/mcp`,
      headers: { Authorization: `Bearer ${SECRET_PLACEHOLDER}` },
    });
    for (const s of families.flatMap((f) => f.snippets).filter((s) => s.secret)) {
      const code = s.code(HOST, KEY);
      expect(code, s.id).toContain(SECRET_PLACEHOLDER);
      // the public key is refused where a secret key goes (MCP) or would leak a server's calls into a page's limits
      expect(code, s.id).not.toContain(KEY);
      expect(code, s.id).not.toContain("svc_key_");
    }
  });

  it("keeps every public-key snippet free of secrets and marks no snippet secret that needs none", () => {
    for (const s of families.flatMap((f) => f.snippets).filter((s) => !s.secret)) {
      const code = s.code(HOST, KEY);
      expect(code, s.id).toContain(KEY);
      expect(code, s.id).toContain(HOST);
      expect(code, s.id).not.toContain(SECRET_PLACEHOLDER);
    }
  });

  it("says each line as its guide does, with the guide's example host and keys", () => {
    for (const f of families) {
      if (f.id === "lift") continue; // the snippet tag is the dashboard's own (README: /api/svc-js?key=…)
      const guide = readFileSync(path.resolve(f.guide.split("#")[0]!), "utf8");
      for (const s of f.snippets) {
        const generic = s
          .code(HOST, KEY)
          .replaceAll(HOST, "https://lift.example.com")
          .replaceAll(KEY, "svc_pk_…")
          .replaceAll(SECRET_PLACEHOLDER, "svc_key_…");
        for (const line of generic.split("\n").filter((l) => l.trim() !== "")) {
          const asGuide = (s.guideForm?.(line) ?? line).trim();
          expect(guide, `${s.id}: ${line}`).toContain(asGuide);
        }
      }
    }
  });
});
