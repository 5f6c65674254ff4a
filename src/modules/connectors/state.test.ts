import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pkceChallenge, pkcePair, signState, verifyState } from "./oauth.js";

const key = randomBytes(32);
const payload = { n: "ost_1", w: "ws_1", p: "prj_1", u: "usr_1", t: "crm" as const, e: Date.now() + 60_000 };

describe("OAuth state", () => {
  it("round-trips and binds workspace, project, user, type and expiry", () => {
    const check = verifyState(key, signState(key, payload));
    expect(check).toEqual({ ok: true, payload });
  });

  it("any single-character change is refused", () => {
    const state = signState(key, payload);
    fc.assert(
      fc.property(fc.nat(state.length - 1), fc.constantFrom(..."ABCxyz019-_."), (i, ch) => {
        fc.pre(state[i] !== ch);
        const forged = state.slice(0, i) + ch + state.slice(i + 1);
        expect(verifyState(key, forged).ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("another key's state is invalid; a past expiry is expired", () => {
    expect(verifyState(randomBytes(32), signState(key, payload))).toEqual({
      ok: false,
      code: "invalid_state",
    });
    expect(verifyState(key, signState(key, { ...payload, e: Date.now() - 1 }))).toEqual({
      ok: false,
      code: "expired_state",
    });
    expect(verifyState(key, undefined)).toEqual({ ok: false, code: "invalid_state" });
    expect(verifyState(key, "x".repeat(5000))).toEqual({ ok: false, code: "invalid_state" });
  });

  it("PKCE S256 matches RFC 7636 appendix B; generated verifiers are 64 url-safe chars", () => {
    expect(pkceChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe(
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    );
    const { verifier, challenge } = pkcePair();
    expect(verifier).toMatch(/^[\w-]{64}$/);
    expect(challenge).toBe(pkceChallenge(verifier));
  });
});
