import { describe, expect, it } from "vitest";
import { urlMatches as goalsUrlMatches } from "../modules/goals/matching.js";
import { urlMatches } from "./url-match.js";

// The snippet's targetUrl matching must follow the same rules as conversion goals' urlPattern.
const CASES: Array<[string, string, boolean]> = [
  ["/pricing", "https://shop.example/pricing", true],
  ["/pricing", "https://shop.example/pricing/", true],
  ["/pricing", "https://shop.example/pricing?plan=pro", true],
  ["/pricing", "https://shop.example/pricing-old", false],
  ["/pricing*", "https://shop.example/pricing/annual", true],
  ["/PRICING", "https://shop.example/pricing", true],
  ["/blog/*/comments", "https://shop.example/blog/2026/x/comments", true],
  ["https://shop.example/*", "https://shop.example/a/b?c=1", true],
  ["https://shop.example/*", "https://other.example/a", false],
  ["shop.example/checkout", "https://shop.example/checkout", true],
  ["*.example/checkout", "https://eu.shop.example/checkout", true],
  ["/a.b", "https://shop.example/aXb", false],
  ["/search?q=*", "https://shop.example/search?q=shoes", true],
];

describe("snippet targetUrl matching", () => {
  it.each(CASES)("%s vs %s → %s, like conversion goals", (pattern, url, expected) => {
    expect(urlMatches(pattern, url)).toBe(expected);
    expect(goalsUrlMatches(pattern, url)).toBe(expected);
  });
});
