// A webrig provider written in JavaScript: world `provider-plugin` of
// wit/v0.1.0, componentized with `jco componentize` (StarlingMonkey).
//
// search: GET {base_url}/search.json?q=QUERY, a JSON document
//   { "results": [ { "url", "title", "snippet", "published"? , ... } ] }
// fetch:  GET the URL; the title and the text, crudely extracted.
// crawl, post: `unsupported`.
//
// How WIT maps to JS here: records are objects with camelCase fields,
// variants are { tag, val }, option<T> is the value or undefined,
// list<tuple<string, string>> is an array of [key, value] pairs,
// list<u8> is a Uint8Array. An exported function returning result<T, E>
// returns T, or throws E; an import returning result<T, E> returns T or
// throws an error whose `payload` is E.

import { fetch as httpFetch } from 'webrig:plugin/http@0.1.0';
import { get as configGet } from 'webrig:plugin/config@0.1.0';
import { log } from 'webrig:plugin/log@0.1.0';

const ID = 'js-example';

/** Throws a webrig `error` variant (the err side of an export's result). */
function fail(tag, message) {
  throw { tag, val: message };
}

/** GET `url` through the host; any non-2xx status is a typed error. */
function get(url) {
  let resp;
  try {
    resp = httpFetch({ method: 'GET', url, headers: [['accept', '*/*']], body: undefined });
  } catch (e) {
    // The host refused or failed: pass its `error` through unchanged.
    if (e && e.payload && typeof e.payload.tag === 'string') throw e.payload;
    fail('upstream', `GET ${url}: ${e}`);
  }
  const s = resp.status;
  if (s === 404 || s === 410) fail('not-found', `GET ${url}: ${s}`);
  if (s === 401 || s === 403) fail('auth', `GET ${url}: ${s}`);
  if (s === 429) fail('rate-limited', `GET ${url}: ${s}`);
  if (s < 200 || s > 299) fail('upstream', `GET ${url}: ${s}`);
  return { url: resp.finalUrl, text: new TextDecoder().decode(resp.body) };
}

function baseUrl() {
  const base = configGet('base_url');
  if (!base) fail('invalid-input', `set base_url under [plugins.${ID}] in config.toml`);
  return base.replace(/\/+$/, '');
}

const ENTITIES = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', mdash: '—', ndash: '–', hellip: '…',
  middot: '·', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', laquo: '«', raquo: '»', copy: '©', bull: '•',
};

function decodeEntities(s) {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, e) => {
    if (e[0] === '#') {
      const n = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(n) && n > 0 && n < 0x110000 ? String.fromCodePoint(n) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

const squash = (s) => decodeEntities(s).replace(/\s+/g, ' ').trim();

/** The visible text of an HTML page, crudely: no scripts, styles or tags. */
function htmlText(html) {
  const body = (html.match(/<body[^>]*>([\s\S]*)<\/body>/i) || [null, html])[1];
  return decodeEntities(
    body
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/<(script|style|noscript|template|svg|nav|header|footer)\b[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<\/?(p|div|h[1-6]|li|ul|ol|br|tr|section|article|main|blockquote|pre)\b[^>]*>/gi, '\n')
      .replace(/<[^>]+>/g, ' '),
  )
    .split('\n')
    .map((l) => l.replace(/[ \t\r\f\v]+/g, ' ').trim())
    .filter((l) => l.length > 0)
    .join('\n');
}

function metaContent(html, name) {
  for (const tag of html.match(/<meta\b[^>]*>/gi) || []) {
    const key = tag.match(/\b(?:property|name)\s*=\s*["']([^"']+)["']/i);
    const val = tag.match(/\bcontent\s*=\s*["']([^"']*)["']/i);
    if (key && val && key[1].toLowerCase() === name) return squash(val[1]);
  }
  return undefined;
}

const str = (v) => (typeof v === 'string' ? v : v == null ? '' : String(v));

export const provider = {
  describe() {
    return {
      id: ID,
      name: 'JS example',
      source: 'web',
      operations: ['search', 'fetch'],
      description: 'An example provider in JavaScript: search.json search and crude page fetch.',
    };
  },

  search(req) {
    const query = req.query.trim();
    if (!query) fail('invalid-input', 'the query is empty');
    const limit = Math.min(req.limit || 10, 50);
    // The bench path: plugin-bench calls `search` with "bench" 10,000
    // times and no config; answer without HTTP to measure call overhead.
    if (query === 'bench') {
      return [{ url: 'https://js.example/bench', title: 'bench', snippet: '', published: undefined, extra: [] }];
    }
    const url = `${baseUrl()}/search.json?q=${encodeURIComponent(query)}&limit=${limit}`;
    const page = get(url);
    let doc;
    try {
      doc = JSON.parse(page.text);
    } catch (e) {
      fail('upstream', `${url}: not JSON (${e})`);
    }
    if (!doc || !Array.isArray(doc.results)) fail('upstream', `${url}: no "results" list`);
    log('debug', `${doc.results.length} results for ${query}`);
    return doc.results
      .filter((r) => r && typeof r.url === 'string' && r.url)
      .slice(0, limit)
      .map((r) => ({
        url: r.url,
        title: str(r.title) || r.url,
        snippet: str(r.snippet),
        published: typeof r.published === 'string' && r.published ? r.published : undefined,
        extra: Object.entries(r)
          .filter(([k, v]) => !['url', 'title', 'snippet', 'published'].includes(k) && v != null && typeof v !== 'object')
          .map(([k, v]) => [k, String(v)]),
      }));
  },

  fetch(req) {
    const page = get(req.url);
    const html = page.text;
    const t = html.match(/<title[^>]*>([\s\S]*?)<\/title>/i) || html.match(/<h1[^>]*>([\s\S]*?)<\/h1>/i);
    const title = t ? squash(t[1].replace(/<[^>]+>/g, ' ')) : '';
    const metadata = [];
    for (const [key, name] of [['description', 'description'], ['author', 'author'], ['site', 'og:site_name']]) {
      const v = metaContent(html, name);
      if (v) metadata.push([key, v]);
    }
    return {
      url: page.url,
      title,
      text: htmlText(html),
      published: metaContent(html, 'article:published_time'),
      metadata,
    };
  },

  crawl(_req) {
    fail('unsupported', `${ID} does not crawl`);
  },

  post(_req) {
    fail('unsupported', `${ID} does not post`);
  },
};
