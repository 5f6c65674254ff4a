import { describe, expect, it } from "vitest";
import { CHANNELS, deriveAcquisition } from "./channel.js";

const SITE = "https://shop.example.com/pricing";
// [landing URL (query appended to SITE when it starts with "?"), referrer, channel, source]
const CASES: [string, string | null, string, string | null][] = [
  ["", null, "direct", null],
  ["", "", "direct", null],
  ["", "https://shop.example.com/blog", "direct", null],
  ["", "https://www.google.com/", "organic_search", "google"],
  ["", "https://www.google.co.uk/", "organic_search", "google"],
  ["", "https://www.google.com.au/search?q=lift", "organic_search", "google"],
  ["", "https://www.bing.com/search?q=lift", "organic_search", "bing"],
  ["", "https://duckduckgo.com/", "organic_search", "duckduckgo"],
  ["", "https://search.yahoo.com/search?p=lift", "organic_search", "yahoo"],
  ["", "https://yandex.ru/search/?text=lift", "organic_search", "yandex"],
  ["", "https://www.ecosia.org/search?q=lift", "organic_search", "ecosia"],
  ["", "https://search.brave.com/search?q=lift", "organic_search", "brave"],
  ["", "android-app://com.google.android.googlequicksearchbox/", "organic_search", "google"],
  ["?gclid=EAIaIQobChMI", "https://www.google.com/", "paid_search", "google"],
  ["?msclkid=abc123", "https://www.bing.com/", "paid_search", "bing"],
  [
    "?utm_source=google&utm_medium=cpc&utm_campaign=brand",
    "https://www.google.com/",
    "paid_search",
    "google",
  ],
  ["?utm_source=bing&utm_medium=ppc", null, "paid_search", "bing"],
  ["", "https://l.facebook.com/l.php?u=x", "organic_social", "facebook"],
  ["", "https://t.co/abc", "organic_social", "twitter"],
  ["", "https://www.linkedin.com/feed/", "organic_social", "linkedin"],
  ["", "https://www.reddit.com/r/saas/", "organic_social", "reddit"],
  ["", "https://news.ycombinator.com/item?id=1", "organic_social", "hacker news"],
  ["", "https://www.youtube.com/watch?v=x", "organic_social", "youtube"],
  ["?fbclid=IwAR0abc", "https://m.facebook.com/", "organic_social", "facebook"],
  ["?utm_source=facebook&utm_medium=paid_social", null, "paid_social", "facebook"],
  ["?utm_source=fb&utm_medium=cpc", "https://l.facebook.com/", "paid_social", "fb"],
  ["?li_fat_id=1234", "https://www.linkedin.com/", "paid_social", "linkedin"],
  ["?ttclid=E.C.P.abc", null, "paid_social", "tiktok"],
  ["?utm_source=linkedin&utm_medium=social", null, "organic_social", "linkedin"],
  ["?utm_source=newsletter&utm_medium=email&utm_campaign=may", null, "email", "newsletter"],
  ["?utm_source=mailchimp&utm_medium=e-mail", null, "email", "mailchimp"],
  ["", "https://mail.google.com/mail/u/0/", "email", "gmail"],
  ["", "https://outlook.live.com/mail/0/", "email", "outlook"],
  ["", "android-app://com.google.android.gm/", "email", "gmail"],
  ["?utm_source=partnerblog&utm_medium=affiliate", null, "affiliate", "partnerblog"],
  ["?utm_source=adnet&utm_medium=display", null, "display", "adnet"],
  ["?utm_source=adnet&utm_medium=banner", null, "display", "adnet"],
  ["?utm_source=adnet&utm_medium=cpm", null, "display", "adnet"],
  ["", "https://chatgpt.com/", "ai_assistant", "chatgpt"],
  ["?utm_source=chatgpt.com", null, "ai_assistant", "chatgpt.com"],
  ["", "https://www.perplexity.ai/search/x", "ai_assistant", "perplexity"],
  ["", "https://claude.ai/chat/1", "ai_assistant", "claude"],
  ["", "https://gemini.google.com/app", "ai_assistant", "gemini"],
  ["", "https://copilot.microsoft.com/", "ai_assistant", "copilot"],
  ["", "https://techcrunch.com/2026/01/01/lift/", "referral", "techcrunch.com"],
  ["", "https://blog.example.org/post", "referral", "blog.example.org"],
  ["?utm_source=partner-site&utm_medium=referral", null, "referral", "partner-site"],
  ["?utm_source=Google&utm_medium=Organic", null, "organic_search", "google"],
  ["?utm_medium=organic", null, "organic_search", null],
  ["?utm_source=producthunt", null, "organic_social", "producthunt"],
];

describe("channel derivation (rules from channels.json)", () => {
  it("has at least 30 real-world cases covering every channel", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
    expect(new Set(CASES.map((c) => c[2]))).toEqual(new Set(CHANNELS));
  });
  for (const [query, referrer, channel, source] of CASES) {
    it(`${query || "(no query)"} from ${referrer ?? "(no referrer)"} → ${channel}`, () => {
      const url = query.startsWith("?") ? SITE + query : SITE;
      const acq = deriveAcquisition(url, referrer);
      expect({ channel: acq.channel, source: acq.source }).toEqual({ channel, source });
    });
  }

  it("marks a self-referral and keeps campaign and landing page", () => {
    const self = deriveAcquisition(SITE, "https://www.shop.example.com/");
    expect(self).toMatchObject({ channel: "direct", selfReferral: true, landingPage: SITE });
    const tagged = deriveAcquisition(`${SITE}?utm_source=x&utm_medium=email&utm_campaign=Spring#top`, null);
    expect(tagged).toMatchObject({ campaign: "Spring", medium: "email", landingPage: SITE });
  });
});
