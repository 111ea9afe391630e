// Renders PR comments the way GitHub shows them, in headless Chromium, and
// reports what a reviewer would see.
//
//   node tests/render/render.mjs JOB.json
//
// JOB: {"pages": [{"name": "...", "markdown": "file.md", "screenshot": "file.png"}]}
// Prints one JSON object per page (a JSON array) on stdout.
//
// Markdown -> HTML: GitHub-flavoured markdown (remark-gfm: tables, task lists,
// strikethrough, autolinks), raw HTML parsed (rehype-raw) and then sanitized
// with rehype-sanitize's default schema, which is GitHub's (so <details> and
// <summary> survive and anything GitHub strips is stripped here too).
// ```mermaid blocks are drawn by the real mermaid package, as GitHub does.
// Styles: github-markdown-css, GitHub's own markdown stylesheet.
//
// No network: the page and its two assets are served from 127.0.0.1, and any
// other request is aborted and reported.

import { mkdtempSync, readFileSync, rmSync, mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "node", "package.json"));
const load = (name) => import(require.resolve(name));

const { unified } = await load("unified");
const { default: remarkParse } = await load("remark-parse");
const { default: remarkGfm } = await load("remark-gfm");
const { default: remarkRehype } = await load("remark-rehype");
const { default: rehypeRaw } = await load("rehype-raw");
const { default: rehypeSanitize } = await load("rehype-sanitize");
const { default: rehypeStringify } = await load("rehype-stringify");
const playwright = await load("playwright-core");
const chromium = playwright.chromium ?? playwright.default.chromium;

const CHROMIUM = process.env.SB_CHROMIUM || "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const ASSETS = {
  "/mermaid.min.js": [require.resolve("mermaid/dist/mermaid.min.js"), "text/javascript"],
  "/github-markdown.css": [require.resolve("github-markdown-css/github-markdown-light.css"), "text/css"],
};

function toHtml(markdown) {
  return String(
    unified()
      .use(remarkParse)
      .use(remarkGfm)
      .use(remarkRehype, { allowDangerousHtml: true })
      .use(rehypeRaw)
      .use(rehypeSanitize)
      .use(rehypeStringify)
      .processSync(markdown),
  );
}

// A comment as it sits in a PR conversation: a bordered box with a header
// line, the body in GitHub's markdown style, about as wide as on github.com.
function page(body) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>comment</title>
<link rel="stylesheet" href="/github-markdown.css">
<style>
  body { margin: 0; padding: 24px; background: #fff; }
  .comment { max-width: 880px; margin: 0 auto; border: 1px solid #d1d9e0; border-radius: 6px; }
  .comment-header { padding: 8px 16px; background: #f6f8fa; border-bottom: 1px solid #d1d9e0;
    border-radius: 6px 6px 0 0; color: #59636e;
    font: 14px -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
  .comment-header b { color: #1f2328; }
  .markdown-body { padding: 16px; }
  .mermaid-diagram { margin-bottom: 16px; text-align: center; }
</style></head>
<body><div class="comment">
<div class="comment-header"><b>github-actions</b> bot commented</div>
<article class="markdown-body">${body}</article>
</div>
<script src="/mermaid.min.js"></script>
<script>
  // GitHub draws each \`\`\`mermaid block as a diagram in place of the code.
  window.rendered = (async () => {
    const blocks = [...document.querySelectorAll("pre > code.language-mermaid")];
    for (const code of blocks) {
      const holder = document.createElement("div");
      holder.className = "mermaid-diagram";
      const source = document.createElement("div");
      source.className = "mermaid";
      source.textContent = code.textContent;
      holder.appendChild(source);
      code.parentElement.replaceWith(holder);
    }
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "default" });
    try {
      await mermaid.run({ querySelector: "div.mermaid" });
    } catch (error) {
      console.error("mermaid: " + (error && error.message ? error.message : error));
    }
    return blocks.length;
  })();
</script>
</body></html>`;
}

async function serve(pages) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    if (pages.has(url.pathname)) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(pages.get(url.pathname));
    } else if (ASSETS[url.pathname]) {
      const [file, type] = ASSETS[url.pathname];
      res.writeHead(200, { "content-type": type });
      res.end(readFileSync(file));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

async function inspect(browserPage) {
  return browserPage.evaluate(() => {
    const body = document.querySelector(".markdown-body");
    const details = [...body.querySelectorAll("details")];
    const diagrams = [...body.querySelectorAll(".mermaid-diagram")];
    return {
      tables: [...body.querySelectorAll("table")].map((t) => ({
        headers: [...t.querySelectorAll("thead th")].map((th) => th.textContent.trim()),
        rows: t.querySelectorAll("tbody tr").length,
      })),
      details: {
        count: details.length,
        open: details.filter((d) => d.open).length,
        summaries: details.map((d) => (d.querySelector("summary") || { textContent: "" }).textContent.trim()),
      },
      mermaid: diagrams.map((d) => {
        const svg = d.querySelector("svg");
        const labels = svg ? [...svg.querySelectorAll("text, foreignObject")].map((e) => e.textContent.trim()) : [];
        return {
          svg: svg !== null,
          width: svg ? svg.getBoundingClientRect().width : 0,
          height: svg ? svg.getBoundingClientRect().height : 0,
          // mermaid draws a failed diagram as an error picture ("Syntax error in text")
          errorDrawn: svg !== null && svg.querySelector(".error-icon, .error-text") !== null,
          labels: labels.filter((l) => l),
          unrendered: svg ? "" : d.textContent,
        };
      }),
      // code blocks left once the charts are drawn: a yaml's diff, the command that applies the patch
      codeBlocks: [...body.querySelectorAll("pre > code")].map((c) => ({
        language: (c.className.match(/language-(\S+)/) || ["", ""])[1],
        text: c.textContent,
        inDetails: c.closest("details") !== null,
      })),
      text: body.innerText,
      width: document.documentElement.scrollWidth,
      viewport: window.innerWidth,
    };
  });
}

const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
const pages = new Map(job.pages.map((p, i) => [`/${i}.html`, page(toHtml(readFileSync(p.markdown, "utf8")))]));
const server = await serve(pages);
const origin = `http://127.0.0.1:${server.address().port}`;
const profile = mkdtempSync(join(tmpdir(), "sb-render-chromium-"));
const results = [];
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: FLAGS,
    headless: true,
    chromiumSandbox: false,
    viewport: { width: 960, height: 800 },
    deviceScaleFactor: 1,
    offline: false,
  });
  for (const [i, spec] of job.pages.entries()) {
    const browserPage = await context.newPage();
    const consoleErrors = [];
    const blocked = [];
    browserPage.on("console", (msg) => {
      if (msg.type() === "error") consoleErrors.push(msg.text());
    });
    browserPage.on("pageerror", (error) => consoleErrors.push(String(error)));
    await browserPage.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(origin + "/") || url.startsWith("data:")) return route.continue();
      blocked.push(url);
      return route.abort();
    });
    await browserPage.goto(`${origin}/${i}.html`, { waitUntil: "load" });
    const blocks = await browserPage.evaluate(() => window.rendered);
    await browserPage.evaluate(() => {
      for (const d of document.querySelectorAll("details")) d.open = true;
    });
    await browserPage.evaluate(() => document.fonts.ready);
    const seen = await inspect(browserPage);
    mkdirSync(dirname(spec.screenshot), { recursive: true });
    // The whole comment (the full page, without the empty viewport below a short one).
    const box = await browserPage.evaluate(() => {
      const r = document.querySelector(".comment").getBoundingClientRect();
      return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
    });
    const margin = 12;
    const clip = {
      x: Math.max(0, box.x - margin),
      y: Math.max(0, box.y - margin),
      width: box.width + 2 * margin,
      height: box.height + 2 * margin,
    };
    await browserPage.screenshot({ path: spec.screenshot, fullPage: true, clip });
    results.push({ name: spec.name, mermaidBlocks: blocks, consoleErrors, blocked, ...seen });
    await browserPage.close();
  }
} finally {
  if (context) await context.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(results, null, 1) + "\n");
