import { AppError } from "../../../platform/errors.js";
import { type Action, type SourceAdapter, header, isObject, str } from "./types.js";
import { verifyGitHub } from "./verify.js";

/**
 * GitHub events → custom events on the project: a new star, a fork, and an app installation (the
 * code host's sign-up). The visitor is the GitHub account (`code_host:<user id>`), so one person's
 * star and installation share a journey.
 */
export const codeHostAdapter: SourceAdapter = {
  signatureCheck(req) {
    const sig = header(req, "x-hub-signature-256");
    if (!sig || !/^sha256=[0-9a-f]{64}$/.test(sig)) {
      throw new AppError("UNAUTHORIZED", "missing or malformed X-Hub-Signature-256 header");
    }
    return (secret) => verifyGitHub(req.rawBody, sig, secret);
  },
  units(req) {
    const delivery = header(req, "x-github-delivery");
    const event = header(req, "x-github-event");
    if (!delivery || !event || !isObject(req.body)) {
      throw new AppError(
        "VALIDATION_ERROR",
        "X-GitHub-Delivery, X-GitHub-Event and a JSON object body are required",
      );
    }
    return [{ id: delivery, payload: { event, body: req.body } }];
  },
  async extract(unit) {
    const { event, body } = unit.payload as { event: string; body: Record<string, unknown> };
    const sender = isObject(body.sender) ? body.sender : {};
    const repo = isObject(body.repository) ? body.repository : {};
    const login = str(sender.login);
    const visitorId = `code_host:${str(sender.id) ?? login ?? "unknown"}`;
    const base = { repository: str(repo.full_name), login };
    const url = str(repo.html_url);
    const at = (v: unknown) =>
      typeof v === "string" && !Number.isNaN(Date.parse(v)) ? Date.parse(v) : undefined;
    const out: Action[] = [];
    if (event === "star" && body.action === "created") {
      out.push({
        kind: "event",
        type: "code_host.star",
        visitorId,
        url,
        data: base,
        timestamp: at(body.starred_at),
      });
    } else if (event === "fork") {
      const forkee = isObject(body.forkee) ? body.forkee : {};
      out.push({
        kind: "event",
        type: "code_host.fork",
        visitorId,
        url,
        data: { ...base, fork: str(forkee.full_name) },
        timestamp: at(forkee.created_at),
      });
    } else if (event === "installation" && body.action === "created") {
      const inst = isObject(body.installation) ? body.installation : {};
      const account = isObject(inst.account) ? inst.account : {};
      const repos = Array.isArray(body.repositories) ? body.repositories.length : undefined;
      out.push({
        kind: "event",
        type: "code_host.signup",
        visitorId,
        url: str(inst.html_url),
        data: { login, installationId: str(inst.id), account: str(account.login), repositories: repos },
        timestamp: typeof inst.created_at === "number" ? inst.created_at * 1000 : at(inst.created_at),
      });
    }
    return out;
  },
};
