const log = document.getElementById("log");
let conversationId = null;

function nearBottom() {
  return log.scrollHeight - log.scrollTop - log.clientHeight < 80;
}

// Bidi controls, direction marks and zero-width characters are removed from every text the page shows (the
// server removes them from names too, models/name_text.py): none can reverse a line or hide a character.
const INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

function visible(text) {
  return String(text).replace(INVISIBLE, "");
}

function add(cls, text) {
  const div = document.createElement("div");
  div.className = cls;
  div.textContent = visible(text);
  log.appendChild(div);
  log.scrollTop = log.scrollHeight;  // a new message: show it
  return div;
}

// Markdown from the coach, rendered by marked and sanitised by DOMPurify: no text from the data (a card
// name, a player name, a pasted message) can add markup, run anything or make the browser fetch anything.
// Raw HTML in the markdown is shown as text; a link is kept only when the address the browser resolves it to is
// on the page's own origin (ownHref); the sanitiser then allows only the tags an answer uses and no attribute
// that can hold a URL but href, which it checks again.
// Re-rendered once per animation frame while the answer streams in.
const ANSWER_TAGS = ["p", "br", "strong", "em", "del", "code", "pre", "ul", "ol", "li", "blockquote", "hr", "h1",
                     "h2", "h3", "h4", "table", "thead", "tbody", "tr", "th", "td", "a", "span", "details", "summary"];
const SANITISE = {ALLOWED_TAGS: ANSWER_TAGS, ALLOWED_ATTR: ["href", "align", "colspan", "rowspan"],
                  ALLOWED_URI_REGEXP: /^(?:\/(?!\/)|#)/, ALLOW_DATA_ATTR: false};

// The address ``href`` leads to, resolved by the browser's own URL parser against this page, as a path on this
// origin; null when it leaves the origin ("//host", "/\host", "\\host", "javascript:", "data:", any other host)
// or does not parse. A resolved path that starts with "//" is written "/.//...": still this origin's path.
function ownHref(href) {
  let url;
  try {
    url = new URL(href, location.href);
  } catch {
    return null;
  }
  if (url.origin !== location.origin) return null;
  return (url.pathname.startsWith("//") ? "/." : "") + url.pathname + url.search + url.hash;
}

// Whatever made an href (a link's markdown, an autolink, a reference), it stays only when it is this origin's.
DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (!node.hasAttribute("href")) return;
  const own = ownHref(node.getAttribute("href"));
  if (own === null || own !== node.getAttribute("href")) node.removeAttribute("href");
});

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"})[c]);
}

marked.use({
  tokenizer: {url() { return undefined; }},  // a bare address in a name stays text (no GFM autolink)
  renderer: {
    html(token) { return escapeHtml(token.text || token.raw || ""); },  // raw HTML from anywhere: shown as text
    link(token) {  // a link elsewhere is shown as its text and address, never as a link
      const text = this.parser.parseInline(token.tokens);
      const own = ownHref(token.href);
      if (own !== null) return `<a href="${escapeHtml(own)}">${text}</a>`;
      return token.raw.startsWith("[") ? `${text} (${escapeHtml(token.href)})` : escapeHtml(token.text);
    },
    image(token) { return escapeHtml(token.raw); },  // an answer has no images: no fetch from anywhere
  },
});

function render(node, text) {
  node.dataset.markdown = text;
  if (node.dataset.pending) return;
  node.dataset.pending = "1";
  requestAnimationFrame(() => {
    const stick = nearBottom();
    delete node.dataset.pending;
    // no images or styles either: an answer never needs them, and an image would fetch from anywhere
    node.innerHTML = DOMPurify.sanitize(marked.parse(visible(node.dataset.markdown), {gfm: true}), SANITISE);
    for (const table of node.querySelectorAll("table")) table.tabIndex = 0;  // it scrolls sideways: keyboard-reachable
    drawManaSymbols(node);
    markWideTables(node);
    if (stick) log.scrollTop = log.scrollHeight;
  });
}

// A table wider than its answer gets a line above it saying it scrolls (its first column stays in place).
// On a phone such a table is laid out as one card per row instead, each value under its column's name, so every
// column a player needs is on the screen without scrolling sideways.
const PHONE = window.matchMedia("(max-width: 700px)");

// A table is fitted to its answer in steps: a cell longer than LONG_CELL characters wraps (a win rate with its
// interval and record) while names and figures keep one line; if it is still too wide its column names wrap too
// (a grid of archetypes); only then does it scroll sideways.
const LONG_CELL = 24;

const tooWide = (table) => table.scrollWidth > table.clientWidth + 1;

function markWideTables(node) {
  for (const table of node.querySelectorAll("table")) {
    const headers = table.rows.length ? [...table.rows[0].cells].map((cell) => cell.textContent.trim()) : [];
    for (const row of [...table.rows].slice(1)) {
      [...row.cells].forEach((cell, i) => { cell.dataset.label = headers[i] || ""; });
    }
    for (const cell of table.querySelectorAll("th, td")) {
      cell.classList.toggle("long", cell.textContent.trim().length > LONG_CELL);
    }
    table.classList.remove("wrap-headers");
    if (PHONE.matches && !table.classList.contains("heatmap") && tooWide(table)) {
      table.classList.add("stacked");
      continue;
    }
    if (tooWide(table)) table.classList.add("wrap-headers");
    // a cell scrolled into view stops beside the held first column, not under it
    if (table.rows.length) table.style.scrollPaddingLeft = `${table.rows[0].cells[0].offsetWidth}px`;
    const hint = table.previousElementSibling;
    const hinted = hint && hint.classList.contains("scroll-hint");
    if (tooWide(table) && !hinted) {
      const p = document.createElement("p");
      p.className = "scroll-hint";
      p.textContent = "⇆ More columns: scroll the table sideways.";
      table.before(p);
    }
  }
}

// Mana symbols in braces, as the server keeps a hybrid or Phyrexian one ("{U/B}", "{G/P}") and a model may write
// any ("{2}{R}"), are drawn as pips: a hybrid one half in each colour, each named in words for a screen reader.
const MANA_SYMBOL = /\{((?:[WUBRGCXS]|\d{1,2})(?:\/[WUBRGC])?(?:\/P)?)\}/;
const MANA_WORDS = {W: "white", U: "blue", B: "black", R: "red", G: "green", C: "colourless", X: "X", S: "snow"};

function manaName(symbol) {
  const parts = symbol.split("/");
  const phyrexian = parts[parts.length - 1] === "P" && parts.length > 1 ? (parts.pop(), "Phyrexian ") : "";
  return `${phyrexian}${parts.map((part) => MANA_WORDS[part] || part).join(" or ")} mana`;
}

function manaPip(symbol) {
  const pip = document.createElement("span");
  pip.className = "mana";
  pip.setAttribute("role", "img");
  pip.setAttribute("aria-label", manaName(symbol));
  pip.title = manaName(symbol);
  pip.textContent = symbol;
  const colours = symbol.split("/").filter((part) => part !== "P").map((part) => COLOURS[part] || COLOURS.C);
  pip.style.background = colours.length > 1 ? `linear-gradient(135deg, ${colours[0]} 50%, ${colours[1]} 50%)` : colours[0];
  return pip;
}

function drawManaSymbols(node) {
  const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT), texts = [];
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    if (MANA_SYMBOL.test(text.data) && !text.parentElement.closest("code, pre")) texts.push(text);
  }
  for (const text of texts) {
    const parts = text.data.split(MANA_SYMBOL);  // split on a capturing pattern: the symbols are every other part
    text.replaceWith(...parts.map((part, i) => (i % 2 ? manaPip(part) : part)).filter((part) => part !== ""));
  }
}

function addAnswer(text) {
  const node = add("msg assistant", "");
  render(node, text);
  return node;
}

// The server's rules for a pasted list, line for line (agent/router.py extract_decklist, decks/parse.py
// parse_deck_text); tests/deck_samples.json is run through both.
const CARD_LINE = /^\s*(?:SB:\s*)?\d{1,2}x?\s+[A-Za-z0-9"'].*$/;
const SECTION_LINE = /^\s*(?:\/\/\s*)?(sideboard|deck|mainboard|main deck|companion|commander)\s*:?\s*$/i;
const LIST_LINE = /^(?:(SB:)\s*)?(\d+)\s*x?\s+(.+?)\s*$/i;
const SIDEBOARD_HEADER = /^(?:\/\/\s*)?sideboard:?$/i;
const IGNORED_HEADER = /^(?:\/\/\s*)?(deck|main ?deck|mainboard|commander|companion|about|name .*):?$/i;

// The list inside a message (six or more card lines) with its main deck and sideboard counts, or null.
function deckCounts(text) {
  const lines = text.split(/\r\n|\r|\n/);
  const rows = lines.flatMap((line, i) => (CARD_LINE.test(line) ? [i] : []));
  if (rows.length < 6) return null;
  let start = rows[0];
  if (start > 0 && SECTION_LINE.test(lines[start - 1])) start -= 1;
  const block = lines.slice(start, rows[rows.length - 1] + 1)
    .filter((line) => !line.trim() || CARD_LINE.test(line) || SECTION_LINE.test(line));
  let main = 0, side = 0, inSide = false;
  for (const raw of block) {
    const line = raw.replace(/[\x00-\x1f\x7f-\x9f]/g, " ").trim().split(/\s+/).join(" ");
    if (!line) {
      if (main > 0) inSide = true;  // a blank line after main deck cards starts the sideboard (MTGO)
      continue;
    }
    if (SIDEBOARD_HEADER.test(line)) { inSide = true; continue; }
    if (IGNORED_HEADER.test(line)) continue;
    const match = LIST_LINE.exec(line);
    if (!match) continue;
    const count = parseInt(match[2], 10);
    if (match[1] || inSide) side += count; else main += count;
  }
  if (!main) [main, side] = [side, 0];  // everything came after a leading blank line
  return {main, side, block: block.join("\n").trim(), start, end: rows[rows.length - 1]};
}

// A pasted decklist is shown collapsed ("Decklist: 60 + 15 cards"), the rest of the message as written.
function addQuestion(text) {
  const deck = deckCounts(text);
  if (!deck) return add("msg user", text);
  const div = add("msg user", "");
  const lines = text.split(/\r\n|\r|\n/);
  const other = lines.filter((line, i) => (i < deck.start || i > deck.end) && line.trim()).join("\n");
  if (other) div.append(other, document.createElement("br"));
  const details = document.createElement("details");
  details.className = "deck";
  const summary = document.createElement("summary");
  summary.textContent = `Decklist: ${deck.main} + ${deck.side} cards`;
  const pre = document.createElement("pre");
  pre.textContent = deck.block;
  details.append(summary, pre);
  div.append(details);
  return div;
}

const WORKFLOWS = {meta_research: "Meta research", deck_coaching: "Deck coaching", cube_draft: "Cube draft"};

// The state in words; the dropdowns follow it.
function showState(state) {
  const rows = [
    ["Format", state.format],
    ["Window", state.days ? `Last ${state.days} days` : null],
    ["Your deck", state.archetype || (state.suggested_archetype ? `${state.suggested_archetype}?` : null)],
    ["Decklist", state.has_deck ? "pasted" : null],
    ["Opponent", state.opponent_archetype],
    ["Draft", state.draft_id],
    ["Talking about", WORKFLOWS[state.current_workflow] || null],
  ];
  const dl = document.getElementById("state");
  dl.replaceChildren();
  for (const [label, value] of rows) {
    const dt = document.createElement("dt"), dd = document.createElement("dd");
    dt.textContent = label;
    dd.textContent = value === null || value === undefined || value === "" ? "—" : visible(value);
    dl.append(dt, dd);
  }
  const select = document.getElementById("format");
  if (state.format && [...select.options].some((o) => o.value === state.format)) select.value = state.format;
  if (state.days) document.getElementById("days").value = state.days;
}

async function errorMessage(response) {
  // the API answers errors as JSON; a proxy or a crash may not
  const text = await response.text();
  try {
    const body = JSON.parse(text);
    return {code: body.error, message: body.message || text};
  } catch {
    return {code: null, message: text.slice(0, 200) || response.statusText};
  }
}

async function welcome() {
  try {
    const response = await fetch("/welcome");
    if (!response.ok) throw new Error((await errorMessage(response)).message);
    const body = await response.json();
    conversationId = body.conversation_id;
    document.getElementById("cid").textContent = `Conversation ${conversationId}`;
    const select = document.getElementById("format");
    if (select.options.length === 1) {
      for (const name of body.available_formats) select.append(new Option(name, name));
    }
    addAnswer(body.message);
  } catch (err) {
    add("msg tool error", `The coach could not start a conversation: ${err.message}. Reload to try again.`);
  }
}

// When a turn ends, its answer's first line is brought into view, with its chart when both fit (on a phone a
// tall chart would push the line asked for off the screen).
function showAnswer(answer) {
  const parts = [answer.node, answer.chart].filter(Boolean);
  if (!parts.length) return;
  requestAnimationFrame(() => {
    const logTop = log.getBoundingClientRect().top, height = log.clientHeight;
    const tops = parts.map((part) => part.getBoundingClientRect().top);
    const start = Math.min(...tops), first = answer.node ? answer.node.getBoundingClientRect().top : start;
    const target = first - start < height - 48 ? start : first;
    if (target < logTop || target > logTop + height / 2) log.scrollTop += target - logTop - 8;
  });
}

// A tool call in words ("Reading the meta rankings"), its name and arguments behind a disclosure.
function stepName(tool) {
  const words = tool.replace(/^get_/, "").replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function toolStep(data) {
  const step = document.createElement("details");
  step.className = "tool";
  const summary = document.createElement("summary");
  summary.textContent = `→ ${stepName(data.tool)}`;
  const detail = document.createElement("code");
  detail.textContent = `${data.tool} ${JSON.stringify(data.arguments || {})}`;
  step.append(summary, detail);
  const stick = nearBottom();
  log.appendChild(step);
  if (stick) log.scrollTop = log.scrollHeight;
}

function handle(event, data, answer) {
  if (event === "metadata") conversationId = data.conversation_id;
  else if (event === "thinking") add("thinking", data.content);
  else if (event === "tool_call") {
    if (data.status === "calling") toolStep(data);
    else add("tool" + (data.status === "error" ? " error" : ""),
             `${data.status === "complete" ? "✓" : "✗"} ${data.summary || stepName(data.tool)}`);
    if (data.status === "complete" && data.data) addChart(data.data, answer);
  } else if (event === "content") {
    if (!answer.node) {
      answer.node = add("msg assistant", "");
      answer.text = "";
    }
    answer.text += data.text;
    render(answer.node, answer.text);
  } else if (event === "grounding" && data.unmatched && data.unmatched.length) {
    // figures of the model's text that no tool result of the turn holds (agent/grounding.py)
    const figures = data.unmatched.map((u) => `${u.figure} (${u.kind})`).join(", ");
    add("msg grounding", `⚠ Not found in this turn's data, so check before relying on them: ${figures}.`);
  } else if (event === "state") showState(data);
  else if (event === "error") add("msg tool error", `error: ${data.message}`);
}

// Server-sent events, read from a stream whose chunks may split an event, a line or a "\r\n" anywhere.
function takeEvents(buffer, answer) {
  const held = buffer.endsWith("\r") ? "\r" : "";  // the "\n" of a "\r\n" may come in the next chunk
  let text = (held ? buffer.slice(0, -1) : buffer).replace(/\r\n?/g, "\n");
  let cut;
  while ((cut = text.indexOf("\n\n")) >= 0) {
    const block = text.slice(0, cut);
    text = text.slice(cut + 2);
    let event = "message", data = "";
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data += line.slice(5).trimStart();
    }
    if (!data) continue;
    try {
      handle(event, JSON.parse(data), answer);
    } catch (err) {
      add("msg tool error", `could not read a "${event}" event: ${err.message}`);
    }
  }
  return text + held;
}

async function send(message) {
  const button = document.getElementById("send");
  button.disabled = true;  // one turn at a time: the server refuses a second one (409) while it answers
  const asked = addQuestion(message);
  let kept = false;  // whether the message went through (the box is refilled when it did not)
  try {
    const context = {};
    const format = document.getElementById("format").value;
    const days = parseInt(document.getElementById("days").value, 10);
    if (format) context.format = format;
    if (days >= 1 && days <= 365) context.days = days;
    const response = await fetch("/chat", {
      method: "POST",
      headers: {"content-type": "application/json"},
      body: JSON.stringify({message, conversation_id: conversationId, context}),
    });
    if (!response.ok) {
      const problem = await errorMessage(response);
      add("msg tool error", `error ${response.status}: ${problem.message}`);
      notSent(asked);
      restore(message);
      if (problem.code === "conversation_not_found" || problem.code === "conversation_expired") {
        add("thinking", "Starting a new conversation; please ask again.");
        await welcome();
      }
      return;
    }
    kept = true;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const answer = {node: null};
    let buffer = "";
    for (;;) {
      const {value, done} = await reader.read();
      if (done) break;
      buffer = takeEvents(buffer + decoder.decode(value, {stream: true}), answer);
    }
    takeEvents(buffer + decoder.decode() + "\n\n", answer);
    showAnswer(answer);
  } catch (err) {
    add("msg tool error", `The connection to the coach failed: ${err.message}. Your conversation is kept; ask again.`);
    if (!kept) {
      notSent(asked);
      restore(message);
    }
  } finally {
    button.disabled = false;
    document.body.dataset.turns = String(Number(document.body.dataset.turns || 0) + 1);
  }
}

// a message the server refused stays in the log marked as such (it is not part of the conversation)
function notSent(node) {
  node.classList.add("not-sent");
  const mark = document.createElement("span");
  mark.className = "not-sent-mark";
  mark.textContent = "Not sent";
  node.prepend(mark);
}

// the typed text comes back after a refused message (too long, busy), unless something new was typed
function restore(message) {
  const box = document.getElementById("message");
  if (!box.value.trim()) box.value = message;
}

document.getElementById("message").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {  // Enter sends, Shift+Enter breaks the line
    e.preventDefault();
    document.getElementById("ask").requestSubmit();
  }
});
// On a phone the context panel is a drawer: the Context button opens it; its × button, Escape and a tap
// on the backdrop close it, and focus goes back to the Context button.
const drawerButton = document.getElementById("drawer");

function setDrawer(open) {
  const was = document.body.classList.contains("drawer-open");
  document.body.classList.toggle("drawer-open", open);
  drawerButton.setAttribute("aria-expanded", String(open));
  if (open && !was) document.getElementById("drawer-close").focus();
  if (!open && was) drawerButton.focus();
}

drawerButton.addEventListener("click", () => setDrawer(!document.body.classList.contains("drawer-open")));
document.getElementById("drawer-close").addEventListener("click", () => setDrawer(false));
document.getElementById("backdrop").addEventListener("click", () => setDrawer(false));
document.addEventListener("keydown", (e) => {
  if (!document.body.classList.contains("drawer-open")) return;
  if (e.key === "Escape") setDrawer(false);
  if (e.key !== "Tab") return;
  // the open drawer holds the focus: Tab cycles through its controls, never the page behind it
  const inside = [...document.getElementById("panel").querySelectorAll("button, select, input, [href]")]
    .filter((el) => !el.disabled && el.offsetParent !== null);
  if (!inside.length) return;
  const first = inside[0], last = inside[inside.length - 1];
  if (!inside.includes(document.activeElement)) {
    e.preventDefault();
    first.focus();
  } else if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
});

// Days is checked as it is typed: a number of days from 1 to 365, or empty (the coach asks)
const daysBox = document.getElementById("days");
function daysValid() {
  const text = daysBox.value.trim();
  const ok = !text || (/^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= 365);
  daysBox.setAttribute("aria-invalid", String(!ok));
  document.getElementById("days-error").hidden = ok;
  return ok;
}
daysBox.addEventListener("input", daysValid);

document.getElementById("ask").addEventListener("submit", (e) => {
  e.preventDefault();
  const box = document.getElementById("message");
  const message = box.value.trim();
  if (!message || document.getElementById("send").disabled) return;
  if (!daysValid()) {  // said beside the box; the message waits in its box
    if (document.body.classList.contains("drawer-open") === false && window.innerWidth < 700) setDrawer(true);
    daysBox.focus();
    return;
  }
  box.value = "";
  send(message);
});
const messageBox = document.getElementById("message");
if (PHONE.matches) messageBox.placeholder = "Ask, or paste your decklist";  // the long hint does not fit a phone
messageBox.focus();  // ready to type
// ?q=... asks a first question once the conversation has started (links, and the browser test)
welcome().then(() => {
  const question = new URLSearchParams(location.search).get("q");
  if (question) send(question);
});
