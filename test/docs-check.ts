// What test/docs.test.ts checks in the Markdown of README.md and docs/, as pure functions: the
// headings a link may point at (GitHub's anchors), the relative links, and the commands shown in
// shell code blocks.

/** A fenced code block: its info string (`sh`, `yaml`, or "") and its lines, with the line number of the first. */
export interface Fence {
  lang: string;
  lines: string[];
  startLine: number;
}

/** Splits Markdown into its fenced code blocks and the text outside them (fences replaced by blank lines, so line numbers hold). */
export function splitFences(markdown: string): { prose: string[]; fences: Fence[] } {
  const prose: string[] = [];
  const fences: Fence[] = [];
  let open: { marker: string; fence: Fence } | undefined;
  markdown.split("\n").forEach((line, i) => {
    const m = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/.exec(line);
    if (open === undefined && m) {
      open = { marker: m[1] as string, fence: { lang: (m[2] as string).toLowerCase(), lines: [], startLine: i + 2 } };
      prose.push("");
    } else if (open !== undefined && line.trim().startsWith(open.marker) && line.trim().replace(/[`~]/g, "") === "") {
      fences.push(open.fence);
      open = undefined;
      prose.push("");
    } else if (open !== undefined) {
      open.fence.lines.push(line);
      prose.push("");
    } else prose.push(line);
  });
  if (open !== undefined) fences.push(open.fence);
  return { prose, fences };
}

/** GitHub's anchor for a heading: lower case, inline Markdown dropped, punctuation but `-` and `_` removed, spaces to `-`. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor the headings of a Markdown file give, duplicates suffixed `-1`, `-2` as GitHub does. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of splitFences(markdown).prose) {
    const m = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1] as string);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** A link in the prose: its target and line. */
export interface Link {
  target: string;
  line: number;
}

/** The links of a Markdown file outside code (fenced blocks and inline code spans), external ones left out. */
export function relativeLinks(markdown: string): Link[] {
  const out: Link[] = [];
  splitFences(markdown).prose.forEach((line, i) => {
    const text = line.replace(/(`+)[^`]*?\1/g, "");
    for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1] as string;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      out.push({ target, line: i + 1 });
    }
  });
  return out;
}

/** A Flotilla command found in a shell block: which program, the words after it, and where. */
export interface ShownCommand {
  program: "flotilla" | "flotillactl" | "npm run";
  words: string[];
  line: number;
  text: string;
}

/** Info strings of the fenced blocks read as shell; an unlabelled block counts too. */
const SHELL = new Set(["", "sh", "bash", "shell", "console", "zsh"]);

/** How each way of starting a program begins (after `npx`, a `$ ` prompt and `VAR=value` words). */
const STARTS: { words: string[]; program: ShownCommand["program"] }[] = [
  { words: ["flotillactl"], program: "flotillactl" },
  { words: ["node", "bin/flotillactl.ts"], program: "flotillactl" },
  { words: ["npm", "run", "-s", "flotillactl", "--"], program: "flotillactl" },
  { words: ["npm", "run", "flotillactl", "--"], program: "flotillactl" },
  { words: ["flotilla"], program: "flotilla" },
  { words: ["node", "bin/flotilla.ts"], program: "flotilla" },
  { words: ["npm", "run", "-s", "flotilla", "--"], program: "flotilla" },
  { words: ["npm", "run", "flotilla", "--"], program: "flotilla" },
  { words: ["npm", "run", "-s"], program: "npm run" },
  { words: ["npm", "run"], program: "npm run" },
];

/** One shell command line into the simple commands it chains (`&&`, `||`, `;`, ` | `), comments dropped. */
export function simpleCommands(line: string): string[] {
  const noComment = line.replace(/(^|\s)#.*$/, "");
  return noComment
    .split(/&&|\|\||;|\s\|\s/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/**
 * The Flotilla commands shown in a Markdown file's shell blocks: every simple command of every
 * line (continuations with a trailing `\` joined) that starts a program of STARTS. Text outside
 * shell blocks is not read: prose mentions commands in many shapes (`rollout pause|resume`).
 * `npm run <script>` of a script that runs flotilla or flotillactl gives both entries.
 */
export function shownCommands(markdown: string): ShownCommand[] {
  const out: ShownCommand[] = [];
  for (const fence of splitFences(markdown).fences) {
    if (!SHELL.has(fence.lang)) continue;
    let pending = "";
    fence.lines.forEach((raw, i) => {
      const joined = pending + raw;
      if (/\\\s*$/.test(raw)) {
        pending = joined.replace(/\\\s*$/, " ");
        return;
      }
      pending = "";
      for (const cmd of simpleCommands(joined.replace(/^\s*\$\s+/, ""))) {
        let words = cmd.split(/\s+/);
        while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] as string)) words = words.slice(1);
        if (words[0] === "npx") words = words.slice(1);
        for (const start of STARTS) {
          if (start.words.every((w, k) => words[k] === w)) {
            out.push({ program: start.program, words: words.slice(start.words.length), line: fence.startLine + i, text: cmd });
            break;
          }
        }
      }
    });
  }
  return out;
}

/** Whether the words name a subcommand of the table (two words first, as bin/command-line.ts picks); `help` always does. */
export function namesCommand(words: readonly string[], table: Readonly<Record<string, unknown>>): boolean {
  const [first, second] = words;
  if (first === undefined) return false;
  if (["help", "--help", "-h"].includes(first)) return true;
  return Object.hasOwn(table, `${first} ${second ?? ""}`) || Object.hasOwn(table, first);
}

/** The flags among a command's words (`--name`, `--name=value`, `-x`), as written; `--` ends them. */
export function flagsShown(words: readonly string[]): string[] {
  const out: string[] = [];
  for (const w of words) {
    if (w === "--") break;
    if (/^--?[A-Za-z]/.test(w)) out.push(w.split("=", 1)[0] as string);
  }
  return out;
}

/** The flags of `shown` that none of the specs defines (long or short name). */
export function unknownFlags(shown: readonly string[], specs: readonly { name: string; short?: string }[]): string[] {
  return shown.filter((f) => !specs.some((s) => f === `--${s.name}` || (s.short !== undefined && f === `-${s.short}`)));
}
