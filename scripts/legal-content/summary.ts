/*
 * The content check's problems as GitHub Actions shows a job's summary (GITHUB_STEP_SUMMARY): Markdown, one section per
 * problem, its lines to paste in a box with a copy button, so that legal staff who edit in the browser read on the
 * pull request's page what the check prints in a terminal.
 */

/** Text shown as it is: no HTML (a component's name in angle brackets would vanish), no Markdown emphasis. */
const plain = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** One problem: its file as a heading, what to do, and the lines it gives, if any, in a fenced block. */
function section(problem: string): string {
  const cut = problem.indexOf("\n\n");
  const said = cut < 0 ? problem : problem.slice(0, cut);
  const lines = cut < 0 ? undefined : problem.slice(cut + 2);
  const file = /^([^\s:]+\.(?:mdx|ts)): /.exec(said);
  const heading = file ? `#### \`${file[1]}\`\n\n` : "";
  const text = plain(file ? said.slice(file[0].length) : said);
  const fence = lines === undefined ? "" : `\n\n\`\`\`${file?.[1]?.endsWith(".ts") ? "ts" : "yaml"}\n${lines}\n\`\`\``;
  return `${heading}${text.charAt(0).toUpperCase()}${text.slice(1)}${fence}`;
}

/** The summary of one run of the check: what it checked and found, and each problem with what to paste. */
export function stepSummary(problems: readonly string[], passed: string): string {
  if (problems.length === 0) return `### Policies and consent statement\n\n${passed}\n`;
  return (
    [
      `### Policies and consent statement: ${problems.length} problem${problems.length === 1 ? "" : "s"} to fix`,
      "Nothing is published until they are fixed. Where a problem gives lines, copy them with the box's copy button, then in GitHub's editor (the pencil on the file) select the lines it names and paste over them.",
      ...problems.map(section),
    ].join("\n\n") + "\n"
  );
}
