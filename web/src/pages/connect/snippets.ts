import { liftSnippet } from "../../components/snippet.js";

/**
 * The Connect page's setup code, one family of SDKs per card. Each snippet is a pure function of
 * this server's host and the project's public key, written as the guide in docs/ has it (those
 * examples are the tested ones; test/web/connect-snippets.test.ts holds every line to its guide).
 * Secret keys are shown once, when created: where one goes, a placeholder stands.
 */
export const SECRET_PLACEHOLDER = "<your secret key>";

export interface Snippet {
  id: string;
  /** what it is for, as the card's sub-heading */
  label: string;
  /** needs a secret key (the placeholder) rather than the public key */
  secret: boolean;
  code: (host: string, publicKey: string) => string;
  /** a line as the guide writes it, where the guide names the values by variable */
  guideForm?: (line: string) => string;
}

export interface Family {
  id: string;
  title: string;
  intro: string;
  /** Lift's guide for the family, in the repository's docs/ */
  guide: string;
  /** the SDK's own documentation */
  link: { href: string; text: string };
  snippets: Snippet[];
}

const posthogJs = (host: string, publicKey: string) => `import posthog from "posthog-js";
posthog.init("${publicKey}", { api_host: "${host}", person_profiles: "identified_only" });`;

const posthogNode = (host: string, _publicKey: string) => `import { PostHog } from "posthog-node";
const client = new PostHog("${SECRET_PLACEHOLDER}", { host: "${host}" });`;

const segmentBrowser = (
  host: string,
  publicKey: string,
) => `import { AnalyticsBrowser } from "@segment/analytics-next";
export const analytics = AnalyticsBrowser.load({ writeKey: "${publicKey}", cdnURL: "${host}" });`;

const segmentNode = (
  host: string,
  _publicKey: string,
) => `import { Analytics } from "@segment/analytics-node";
const analytics = new Analytics({ writeKey: "${SECRET_PLACEHOLDER}", host: "${host}", path: "/v1/batch" });`;

const rudderstackNode = (
  host: string,
  _publicKey: string,
) => `import Analytics from "@rudderstack/rudder-sdk-node";
const rudder = new Analytics("${SECRET_PLACEHOLDER}", { dataPlaneUrl: "${host}" });`;

const growthbook = (host: string, publicKey: string) => `const gb = new growthbook.GrowthBook({
  apiHost: "${host}",
  clientKey: "${publicKey}",
  attributes: { id: visitorId },
});
await gb.init({ streaming: true });`;

const ofrepServer = (
  host: string,
  publicKey: string,
) => `import { OpenFeature } from "@openfeature/server-sdk";
import { OFREPProvider } from "@openfeature/ofrep-provider";

await OpenFeature.setProviderAndWait(
  new OFREPProvider({ baseUrl: "${host}", headers: { Authorization: "Bearer ${publicKey}" } }),
);`;

const ofrepWeb = (host: string, publicKey: string) => `import { OpenFeature } from "@openfeature/web-sdk";
import { OFREPWebProvider } from "@openfeature/ofrep-web-provider";

OpenFeature.setContext({ targetingKey: visitorId });
await OpenFeature.setProviderAndWait(
  new OFREPWebProvider({
    baseUrl: "${host}",
    headers: [["Authorization", "Bearer ${publicKey}"]], // this provider takes a list, not an object
  }),
);`;

const mcpJson = (host: string, _publicKey: string) => `{
  "mcpServers": {
    "lift": {
      "type": "http",
      "url": "${host}/mcp",
      "headers": { "Authorization": "Bearer ${SECRET_PLACEHOLDER}" }
    }
  }
}`;

export const families: Family[] = [
  {
    id: "lift",
    title: "Lift's snippet",
    intro:
      "Put this in the <head> of every page: it tracks pageviews, clicks and form submits and applies running experiments.",
    guide: "README.md",
    link: { href: "/docs", text: "Lift's API reference" },
    snippets: [{ id: "lift", label: "Every page", secret: false, code: liftSnippet }],
  },
  {
    id: "posthog",
    title: "PostHog",
    intro:
      "Keep posthog-js and posthog-node: change the host and the key. Events and feature flags both work.",
    guide: "docs/posthog.md",
    link: { href: "https://posthog.com/docs/libraries/js", text: "PostHog's JavaScript docs" },
    snippets: [
      { id: "posthog-js", label: "Browser (posthog-js)", secret: false, code: posthogJs },
      { id: "posthog-node", label: "Server (posthog-node)", secret: true, code: posthogNode },
    ],
  },
  {
    id: "segment",
    title: "Segment / RudderStack",
    intro:
      "Keep Segment's or RudderStack's libraries: point them at this server and use a project key as the write key.",
    guide: "docs/segment.md",
    link: {
      href: "https://segment.com/docs/connections/sources/catalog/libraries/website/javascript/",
      text: "Segment's analytics.js docs",
    },
    snippets: [
      {
        id: "segment-browser",
        label: "Browser (@segment/analytics-next)",

        secret: false,
        code: segmentBrowser,
      },
      {
        id: "segment-node",
        label: "Server (@segment/analytics-node)",

        secret: true,
        code: segmentNode,
      },
      {
        id: "rudderstack-node",
        label: "Server (@rudderstack/rudder-sdk-node)",

        secret: true,
        code: rudderstackNode,
      },
    ],
  },
  {
    id: "growthbook",
    title: "GrowthBook SDK",
    intro:
      "Any GrowthBook SDK reads this project's feature flags: apiHost is this server, clientKey the public key. Here the browser bundle (window.growthbook).",
    guide: "docs/flags.md",
    link: { href: "https://docs.growthbook.io/lib/js", text: "GrowthBook's JavaScript SDK docs" },
    snippets: [{ id: "growthbook", label: "Browser", secret: false, code: growthbook }],
  },
  {
    id: "openfeature",
    title: "OpenFeature (OFREP)",
    intro:
      "OpenFeature's OFREP providers evaluate flags remotely, with the public key as a Bearer token on servers and in pages.",
    guide: "docs/flags.md",
    link: { href: "https://openfeature.dev/docs/reference/intro", text: "OpenFeature's docs" },
    snippets: [
      {
        id: "ofrep-server",
        label: "Server (@openfeature/ofrep-provider)",

        secret: false,
        code: ofrepServer,
        guideForm: (line) =>
          line
            .replace('"https://lift.example.com"', "LIFT_URL")
            .replace('"Bearer svc_pk_…"', `\`Bearer \${LIFT_PUBLIC_KEY}\``),
      },
      {
        id: "ofrep-web",
        label: "Browser (@openfeature/ofrep-web-provider)",

        secret: false,
        code: ofrepWeb,
      },
    ],
  },
  {
    id: "mcp",
    title: "MCP for AI agents",
    intro:
      "Claude Code, Cursor and other MCP clients ask this project's numbers at /mcp, with a secret API key.",
    guide: "docs/mcp.md",
    link: { href: "https://modelcontextprotocol.io", text: "The Model Context Protocol" },
    snippets: [{ id: "mcp", label: "mcp.json", secret: true, code: mcpJson }],
  },
];
