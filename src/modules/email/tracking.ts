import { hmacSha256, safeEqual } from "../../platform/crypto.js";

/**
 * Open and click tracking through URLs served by this API, signed with HMAC so nobody can forge
 * opens or turn the click endpoint into an open redirect.
 */
export class Tracker {
  constructor(
    private key: Buffer,
    private publicUrl: string,
  ) {}

  private sign(data: string): string {
    return hmacSha256(this.key, data).toString("base64url");
  }

  openUrl(sendId: string): string {
    return `${this.publicUrl}/api/transactional/t/o/${sendId}/${this.sign(`o:${sendId}`)}.gif`;
  }

  clickUrl(sendId: string, url: string): string {
    const q = new URLSearchParams({ u: url, s: this.sign(`c:${sendId}\n${url}`) });
    return `${this.publicUrl}/api/transactional/t/c/${sendId}?${q}`;
  }

  verifyOpen(sendId: string, sig: string): boolean {
    return safeEqual(sig, this.sign(`o:${sendId}`));
  }

  verifyClick(sendId: string, url: string, sig: string): boolean {
    return safeEqual(sig, this.sign(`c:${sendId}\n${url}`));
  }

  /** Rewrites http(s) links to signed click redirects and adds the open pixel; mailto: and others stay. */
  instrument(html: string, sendId: string): string {
    const linked = html.replace(HREF, (whole, start: string, quote: string, value: string) => {
      const url = decodeEntities(value.trim());
      if (!/^https?:\/\//i.test(url)) return whole;
      return `${start}${quote}${escapeAttr(this.clickUrl(sendId, url))}${quote}`;
    });
    const pixel = `<img src="${escapeAttr(this.openUrl(sendId))}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0" />`;
    const i = linked.toLowerCase().lastIndexOf("</body>");
    return i === -1 ? linked + pixel : linked.slice(0, i) + pixel + linked.slice(i);
  }
}

const HREF = /(<a\b[^>]*?\shref\s*=\s*)(["'])(.*?)\2/gis;

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", "#39": "'" };
function decodeEntities(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|apos|#39|#x[0-9a-f]+|#\d+);/gi, (m, e: string) => {
    const k = e.toLowerCase();
    if (ENTITIES[k]) return ENTITIES[k]!;
    if (k.startsWith("#x")) return String.fromCodePoint(Number.parseInt(k.slice(2), 16));
    if (k.startsWith("#")) return String.fromCodePoint(Number(k.slice(1)));
    return m;
  });
}
const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;");

/** A transparent 1×1 GIF. */
export const PIXEL = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");
