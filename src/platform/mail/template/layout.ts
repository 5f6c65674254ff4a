import type { BlockT, CommTypeT } from "./blocks.js";

/** Block list → MJML (the html source) and → plain text, both still holding placeholders. */

export const BRAND = "#4f46e5";
const INK = "#111827";
const MUTED = "#6b7280";

// Braces are left alone: placeholders survive MJML and are parsed afterwards.
const esc = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const paragraphs = (s: string) =>
  s
    .split(/\n{2,}/)
    .map((p) => `<p style="margin:0 0 14px">${esc(p).replace(/\n/g, "<br>")}</p>`)
    .join("");

function blockMjml(b: BlockT): string {
  switch (b.type) {
    case "heading":
      return `<mj-text padding="0 0 16px" font-size="24px" line-height="32px" font-weight="700" color="${INK}"><h1 style="margin:0;font-size:24px;line-height:32px">${esc(b.text)}</h1></mj-text>`;
    case "text":
      return `<mj-text padding="0 0 6px" font-size="16px" line-height="24px" color="#374151">${paragraphs(b.text)}</mj-text>`;
    case "button":
      return `<mj-button href="${esc(b.url)}" background-color="${BRAND}" color="#ffffff" font-size="16px" font-weight="600" border-radius="8px" inner-padding="14px 28px" padding="10px 0 20px" align="left">${esc(b.label)}</mj-button>`;
    case "code":
      return `<mj-text padding="8px 0 20px" align="center"><div style="font-family:'SFMono-Regular',Menlo,Consolas,'Liberation Mono',monospace;font-size:34px;line-height:44px;letter-spacing:8px;font-weight:700;color:${BRAND};background:#eef2ff;border-radius:10px;padding:18px 12px">${esc(b.value ?? "{{code}}")}</div>${b.caption ? `<div style="font-size:13px;line-height:20px;color:${MUTED};padding-top:10px">${esc(b.caption)}</div>` : ""}</mj-text>`;
    case "image":
      return `<mj-image src="${esc(b.src)}" alt="${esc(b.alt ?? "")}" padding="0 0 20px" />`;
    case "divider":
      return `<mj-divider border-color="#e5e7eb" border-width="1px" padding="8px 0 20px" />`;
  }
}

const FOOTER_TRANSACTIONAL =
  "You are receiving this email because of activity on your account. It is a transactional message and is sent regardless of email preferences.";
const FOOTER_MARKETING = "You are receiving this email because you subscribed to updates.";

/**
 * The brand footer. Transactional mail never carries an unsubscribe link (spec rule 7); marketing
 * mail always does, bound to {{unsubscribeUrl}}.
 */
function footerMjml(commType: CommTypeT): string {
  const extra =
    commType === "marketing"
      ? ` <a href="{{unsubscribeUrl}}" style="color:${MUTED};text-decoration:underline">Unsubscribe</a>`
      : "";
  const text = commType === "marketing" ? FOOTER_MARKETING : FOOTER_TRANSACTIONAL;
  return `<mj-section padding="16px 24px"><mj-column><mj-text align="center" font-size="12px" line-height="18px" color="${MUTED}">${esc(text)}${extra}</mj-text></mj-column></mj-section>`;
}

export function toMjml(blocks: BlockT[], commType: CommTypeT): string {
  const body = blocks
    .map((b) => {
      const m = blockMjml(b);
      // Sections become raw markers around the block; the engine turns them into conditionals.
      return b.showIf ? `<mj-raw>{{#${b.showIf}}}</mj-raw>${m}<mj-raw>{{/${b.showIf}}}</mj-raw>` : m;
    })
    .join("\n");
  return `<mjml lang="en">
<mj-head>
<mj-title>{{subject}}</mj-title>
<mj-attributes><mj-all font-family="-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif" /></mj-attributes>
</mj-head>
<mj-body background-color="#f3f4f6" width="600px">
<mj-section padding="24px 0 0"><mj-column><mj-divider border-color="${BRAND}" border-width="4px" padding="0" /></mj-column></mj-section>
<mj-section background-color="#ffffff" padding="36px 32px 20px" border-radius="0 0 12px 12px">
<mj-column>
${body}
</mj-column>
</mj-section>
${footerMjml(commType)}
</mj-body>
</mjml>`;
}

/** The plaintext part, written from the blocks rather than scraped from the html. */
export function toText(blocks: BlockT[], commType: CommTypeT): string {
  const out: string[] = [];
  for (const b of blocks) {
    let t: string;
    switch (b.type) {
      case "heading":
        t = b.text;
        break;
      case "text":
        t = b.text;
        break;
      case "button":
        t = `${b.label}: ${b.url}`;
        break;
      case "code":
        t = `${b.caption ? `${b.caption}\n\n` : ""}    ${b.value ?? "{{code}}"}`;
        break;
      case "image":
        t = b.alt ?? "";
        break;
      case "divider":
        t = "----";
        break;
    }
    if (!t) continue;
    out.push(b.showIf ? `{{#${b.showIf}}}${t}\n\n{{/${b.showIf}}}` : `${t}\n\n`);
  }
  out.push(
    `--\n${commType === "marketing" ? `${FOOTER_MARKETING}\nUnsubscribe: {{unsubscribeUrl}}` : FOOTER_TRANSACTIONAL}\n`,
  );
  return out.join("");
}
