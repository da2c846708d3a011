import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve, sep } from "node:path";
import { marked, type Token } from "marked";
import GithubSlugger from "github-slugger";

/**
 * The checks the documentation test applies to README.md and docs/*.md: links and anchors resolve
 * as GitHub renders them, nothing links out of the repository except public http(s) URLs, and the
 * text documents the product rather than the diary of its making.
 */

/** A markdown file's links (and images) and its headings' GitHub anchors, read with a markdown parser (code is not text). */
export function readMarkdown(text: string): { links: string[]; anchors: Set<string> } {
  const tokens = marked.lexer(text, { gfm: true });
  const links: string[] = [];
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  marked.walkTokens(tokens, (token) => {
    if (token.type === "link" || token.type === "image") links.push(token.href);
    if (token.type === "heading") anchors.add(slugger.slug(plainText(token.tokens ?? [])));
  });
  return { links, anchors };
}

/** The text GitHub slugs a heading from: its inline tokens without their markup. */
function plainText(tokens: Token[]): string {
  return tokens.map((t) => ("tokens" in t && t.tokens ? plainText(t.tokens) : "text" in t ? t.text : "")).join("");
}

const PRIVATE_HOST = /^(localhost|.*\.localhost|.*\.local|.*\.internal|127(\.\d+){3}|10(\.\d+){3}|192\.168(\.\d+){2}|172\.(1[6-9]|2\d|3[01])(\.\d+){2}|0\.0\.0\.0|\[?::1\]?|[^.]+)$/i;

/**
 * What is wrong with `href` written in `file` (a path inside `root`), or null. `anchorsOf` reads the
 * anchors of another markdown file of the repository.
 */
export function linkProblem(root: string, file: string, href: string, anchorsOf: (path: string) => Set<string>): string | null {
  if (/^https?:\/\//i.test(href)) {
    let host: string;
    try {
      host = new URL(href).hostname;
    } catch {
      return "not a valid URL";
    }
    return PRIVATE_HOST.test(host) ? `${host} is not a public host` : null;
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return "only relative links and public http(s) URLs are allowed";
  const hash = href.indexOf("#");
  const path = hash === -1 ? href : href.slice(0, hash);
  const anchor = hash === -1 ? null : decodeURIComponent(href.slice(hash + 1));
  if (path.startsWith("/")) return "an absolute path: link relative to the file";
  const target = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
  if (!target.startsWith(root + sep)) return "leaves the repository";
  // A page under docs/ climbing out of it breaks wherever the pages are read on their own: name
  // such files as code instead.
  if (path.split("/").includes("..")) return "climbs out of the page's folder (..): name the file as code";
  if (!existsSync(target)) return `${target.slice(root.length + 1)} does not exist`;
  if (anchor === null) return null;
  if (!target.endsWith(".md")) return "an anchor into a file that is not markdown";
  return anchorsOf(target).has(anchor) ? null : `no heading with the anchor #${anchor} in ${target.slice(root.length + 1)}`;
}

/** The anchors of markdown files, read once each. */
export function anchorReader(): (path: string) => Set<string> {
  const cache = new Map<string, Set<string>>();
  return (path) => {
    let anchors = cache.get(path);
    if (!anchors) cache.set(path, (anchors = readMarkdown(readFileSync(path, "utf8")).anchors));
    return anchors;
  };
}

/**
 * Wording that tells how the project was made rather than what it is: numbered or deictic work
 * sessions ("the fifth session", "this session"), issue numbers, the people who worked on it. The
 * product's own sessions are fine: session token, key, JWT, secret, id and `session_id`, RealMem's
 * "session level".
 */
const NOT_A_PRODUCT_SESSION = String.raw`(?![_-]?ids?\b)(?!\s+(?:tokens?|keys?|JWTs?|secrets?|ids?|level|storage)\b)`;
export const DIARY_WORDING: RegExp[] = [
  new RegExp(String.raw`\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|this|that|last|previous|next|earlier|later|current|whole|same)\s+session(?:'s)?\b${NOT_A_PRODUCT_SESSION}`, "i"),
  new RegExp(String.raw`\b(?:in|during|of|after|before)\s+the\s+session\b${NOT_A_PRODUCT_SESSION}`, "i"),
  /\bsessions?\s+(?:\d+(?![.,]?\d)|one|two|three|four|five|six)\b/i, // "session 3", not a figure such as "session 52.9"
  /\bissues?\s*#?\d+\b/i,
  /\b(?:other|another|the other)\s+(?:helpers?|engineers?)\b/i,
  /\bthe lead\b/i,
];

/** The diary phrases found in `text`, each with its line. */
export function diaryWording(text: string): string[] {
  return text.split("\n").flatMap((line) => DIARY_WORDING.filter((re) => re.test(line)).map((re) => `${re.exec(line)![0]}: ${line.trim()}`));
}
