import { describe, expect, it } from "vitest";
import { GENERIC_CLIENT_AGENTS, isBotAgent } from "./bots.js";

const CRAWLERS = [
  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Linux; Android 11) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse",
  "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.0; +https://openai.com/gptbot)",
  "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/537.36",
  "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
  "Screaming Frog SEO Spider/19.0",
];
const BROWSERS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
];

describe("isBotAgent", () => {
  it("flags crawlers, headless browsers and audit tools", () => {
    expect(CRAWLERS.filter((ua) => !isBotAgent(ua))).toEqual([]);
  });
  it("does not flag generic HTTP clients (curl, node, python-requests, Go …) nor browsers", () => {
    expect([...GENERIC_CLIENT_AGENTS, ...BROWSERS].filter((ua) => isBotAgent(ua))).toEqual([]);
    expect(isBotAgent("curl/7.88.1")).toBe(false);
    expect(isBotAgent("python-requests/2.28.0")).toBe(false);
  });
  it("a missing or empty User-Agent is not a bot", () => {
    expect(isBotAgent(undefined)).toBe(false);
    expect(isBotAgent("")).toBe(false);
  });
});
