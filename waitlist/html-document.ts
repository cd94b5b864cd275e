import escapeHtml from "escape-html";

/**
 * An HTML document as the waitlist writes one, its result pages (endpoints/pages.ts) and its e-mails
 * (mail/message-frame.ts) alike: English, UTF-8, as wide as the screen. `head` holds what comes before the title
 * (escaped already), `style` the one style sheet after it, `body` the whole <body> element.
 */
export function htmlDocument({
  title,
  head,
  style,
  body,
}: {
  title: string;
  head: readonly string[];
  style?: string;
  body: string;
}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${head.map((line) => `${line}\n`).join("")}<title>${escapeHtml(title)}</title>
${style === undefined ? "" : `<style>${style}</style>\n`}</head>
${body}
</html>
`;
}
