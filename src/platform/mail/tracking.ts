import { hmacSha256, safeEqual } from "../crypto.js";

/**
 * Open and click tracking of HTML mail through URLs the caller serves under `base`: the pixel at
 * `<base>/o/<id>/<sig>.gif`, the click redirect at `<base>/c/<id>?u=<url>&s=<sig>`, where `id`
 * names the tracked message. Signed with HMAC so nobody can forge opens or turn the click URL into
 * an open redirect.
 */
export class Tracker {
  constructor(
    private key: Buffer,
    private base: string,
  ) {}

  private sign(data: string): string {
    return hmacSha256(this.key, data).toString("base64url");
  }

  openUrl(id: string): string {
    return `${this.base}/o/${id}/${this.sign(`o:${id}`)}.gif`;
  }

  clickUrl(id: string, url: string): string {
    const q = new URLSearchParams({ u: url, s: this.sign(`c:${id}\n${url}`) });
    return `${this.base}/c/${id}?${q}`;
  }

  verifyOpen(id: string, sig: string): boolean {
    return safeEqual(sig, this.sign(`o:${id}`));
  }

  verifyClick(id: string, url: string, sig: string): boolean {
    return safeEqual(sig, this.sign(`c:${id}\n${url}`));
  }

  /** Rewrites http(s) links to signed click redirects and adds the open pixel; mailto: and others stay. */
  instrument(html: string, id: string): string {
    const linked = html.replace(HREF, (whole, start: string, quote: string, value: string) => {
      const url = decodeEntities(value.trim());
      if (!/^https?:\/\//i.test(url)) return whole;
      return `${start}${quote}${escapeAttr(this.clickUrl(id, url))}${quote}`;
    });
    const pixel = `<img src="${escapeAttr(this.openUrl(id))}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0" />`;
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
