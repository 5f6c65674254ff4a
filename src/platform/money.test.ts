import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromStripeAmount, stripeCurrencyExponent } from "./money.js";

describe("fromStripeAmount", () => {
  it("zero-, two- and three-decimal currencies, case-insensitive", () => {
    expect(fromStripeAmount(5000, "jpy")).toBe(5000);
    expect(fromStripeAmount(5000, "JPY")).toBe(5000);
    expect(fromStripeAmount(12000, "krw")).toBe(12000);
    expect(fromStripeAmount(4999, "usd")).toBe(49.99);
    expect(fromStripeAmount(4999, "EUR")).toBe(49.99);
    expect(fromStripeAmount(12345, "kwd")).toBe(12.345);
    expect(fromStripeAmount(12345, "BHD")).toBe(12.345);
    expect(fromStripeAmount(-1005, "kwd")).toBe(-1.005);
  });

  it("ISK, HUF and TWD stay two-decimal as Stripe's API keeps them", () => {
    for (const c of ["isk", "huf", "twd"]) expect(stripeCurrencyExponent(c)).toBe(2);
    expect(fromStripeAmount(500, "isk")).toBe(5);
  });

  it("prints as the decimal string of the minor units for any amount", () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), fc.constantFrom("usd", "kwd"), (n, c) => {
        const e = stripeCurrencyExponent(c);
        const sign = n < 0 ? "-" : "";
        const digits = String(Math.abs(n)).padStart(e + 1, "0");
        const text = `${sign}${digits.slice(0, -e)}.${digits.slice(-e)}`;
        expect(fromStripeAmount(n, c)).toBe(Number(text));
      }),
    );
  });
});
