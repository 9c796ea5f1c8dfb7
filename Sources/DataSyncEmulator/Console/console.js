// The DataSync emulator's web console (Documentation/Emulator.md, "Web console").
//
// Plain JavaScript, no build step and no external assets. Data is read and written through the
// same DataSync REST paths the SDK uses (so the service's rules, access control included, apply
// to the console too); the admin API under /_emulator/v1 supplies what the REST API has no
// route for: keysets, histories, presence, the request log, the live stream, the clock, reset,
// export and import, the faults panel, and the token helper (which signs with the keyset's
// secret key on the server side, so the page never holds it). Everything from the server is
// rendered with textContent, never as HTML.
"use strict";

const ADMIN = "/_emulator/v1";
const REST = "/v1/datasync/subkeys/";
// Added to the console's own REST calls (DataSync ignores unknown parameters, as it does the
// SDKs' pnsdk), so the request log can tell them apart.
const CONSOLE_TAG = "pnsdk=datasync-console";
const COLLECTIONS = [
  { name: "users", resource: "user", space: "entity", root: "User" },
  { name: "channels", resource: "channel", space: "entity", root: "Channel" },
  { name: "entities", resource: "entity", space: "entity", root: null },
  { name: "memberships", resource: "membership", space: "relationship", root: "Membership" },
  { name: "relationships", resource: "relationship", space: "relationship", root: null },
];
const MAX_LOG = 300;

const state = {
  keysets: [],
  keyset: null,
  collection: "users",
  className: "",
  cursors: [null],
  page: 0,
  nextCursor: null,
  rows: [],
  selected: null,
  generation: 0,
  secret: null,
  refreshTimer: null,
  ready: { list: false, events: false, requests: false },
};

const $ = (id) => document.getElementById(id);
window.__consoleErrors = [];
window.addEventListener("error", (event) => window.__consoleErrors.push(String(event.message)));
window.addEventListener("unhandledrejection", (event) => window.__consoleErrors.push(String(event.reason)));

// MARK: Settings from the address

// Anyone can hand out a console link: a malformed escape (`#keyset=%E0%A4`) makes
// decodeURIComponent throw URIError, which must not keep the console from loading. Such a setting
// is dropped, and the console starts as without it.
function decodeOrNull(text) {
  try {
    return decodeURIComponent(text);
  } catch (_) {
    return null;
  }
}

function readHash() {
  const settings = {};
  for (const part of location.hash.replace(/^#/, "").split("&")) {
    if (!part) continue;
    const [rawName, rawValue = ""] = part.split("=");
    const name = decodeOrNull(rawName);
    const value = decodeOrNull(rawValue);
    if (name !== null && value !== null) settings[name] = value;
  }
  return settings;
}

// One path segment. A browser resolves a segment `.` or `..` as a path step before sending, and
// escaping does not help: the URL standard treats `%2E` as a dot there too. So
// `keysets/../reset` would reach `/_emulator/v1/reset`, which resets every keyset. Such a name
// is refused here (the emulator refuses it as a keyset name too; only a state file written
// before that could still hold one).
function segment(value) {
  if (value === "." || value === "..") {
    throw new Error(`"${value}" cannot be used in an address (a browser reads it as a path step)`);
  }
  return encodeURIComponent(value);
}

function writeHash() {
  const parts = [];
  if (state.keyset) parts.push("keyset=" + encodeURIComponent(state.keyset));
  parts.push("collection=" + encodeURIComponent(state.collection));
  if (state.selected) parts.push("id=" + encodeURIComponent(state.selected));
  history.replaceState(null, "", "#" + parts.join("&"));
}

// MARK: Talking to the emulator

class HTTPError extends Error {
  constructor(status, body) {
    super(describeError(status, body));
    this.status = status;
    this.body = body;
  }
}

function describeError(status, body) {
  if (body && Array.isArray(body.errors) && body.errors[0]) {
    const error = body.errors[0];
    return `${status} ${error.errorCode || ""}: ${error.message || ""}${error.path ? ` (at ${error.path})` : ""}`;
  }
  if (body && body.error && body.error.message) return `${status}: ${body.error.message}`;
  if (body && body.message) return `${status}: ${body.message}`;
  return `HTTP ${status}`;
}

async function readBody(response) {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch (_) {
    return text;
  }
}

async function admin(path, options = {}) {
  const headers = Object.assign({}, options.headers || {});
  if (state.secret) headers["Authorization"] = "Bearer " + state.secret;
  const response = await fetch(ADMIN + path, Object.assign({}, options, { headers }));
  const body = await readBody(response);
  if (response.status === 401) {
    askForSecret();
  }
  if (!response.ok) throw new HTTPError(response.status, body);
  return body;
}

function restPath(rest, query = []) {
  const parts = query.filter(([, value]) => value !== null && value !== undefined && value !== "");
  const token = $("auth-token").value.trim();
  if (token) parts.push(["auth", token]);
  const encoded = parts.map(([name, value]) => `${name}=${encodeURIComponent(value)}`);
  encoded.push(CONSOLE_TAG);
  return REST + segment(state.keyset) + "/" + rest + "?" + encoded.join("&");
}

async function rest(method, rest, { query = [], body, contentType, ifMatch } = {}) {
  const headers = {};
  if (contentType) headers["Content-Type"] = contentType;
  if (ifMatch) headers["If-Match"] = ifMatch;
  const response = await fetch(restPath(rest, query), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await readBody(response);
  if (!response.ok) throw new HTTPError(response.status, parsed);
  return parsed;
}

function mediaType(collection) {
  return `application/vnd.pubnub.objects.${collection.resource}+json;version=1`;
}

function notify(text, ok = false) {
  const notice = $("notice");
  notice.textContent = text;
  notice.className = ok ? "ok" : "";
  notice.hidden = false;
  clearTimeout(notify.timer);
  notify.timer = setTimeout(() => (notice.hidden = true), ok ? 4000 : 10000);
}

function askForSecret() {
  $("secret-form").hidden = false;
  $("secret-input").focus();
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function markReady(part) {
  state.ready[part] = true;
  if (Object.values(state.ready).every(Boolean)) document.documentElement.dataset.ready = "1";
}

// MARK: Keysets and collections

function currentKeyset() {
  return state.keysets.find((keyset) => keyset.subscribeKey === state.keyset) || null;
}

function currentCollection() {
  return COLLECTIONS.find((collection) => collection.name === state.collection);
}

async function loadKeysets() {
  const body = await admin("/keysets");
  state.keysets = body.keysets || [];
  const select = $("keyset");
  const previous = state.keyset;
  select.replaceChildren(
    ...state.keysets.map((keyset) => {
      const option = document.createElement("option");
      option.value = keyset.subscribeKey;
      option.textContent = keyset.subscribeKey + (keyset.pubSub ? "" : " (DataSync only)");
      return option;
    }),
  );
  if (!state.keysets.some((keyset) => keyset.subscribeKey === previous)) {
    state.keyset = state.keysets.length ? state.keysets[0].subscribeKey : null;
  }
  select.value = state.keyset || "";
  renderKeysetInfo();
}

function renderKeysetInfo() {
  const keyset = currentKeyset();
  const info = [];
  if (keyset && !keyset.pubSub) info.push("DataSync only");
  if (keyset && keyset.accessControl) info.push("access control on");
  $("keyset-info").textContent = info.join(" · ");
  $("keyset-info").hidden = info.length === 0;
  $("keyset").title = keyset
    ? (keyset.pubSub ? `publish key ${keyset.publishKey}, ` : "no pub/sub, ") +
      `access control ${keyset.accessControl ? "on" : "off"}`
    : "";
  $("token-field").hidden = !(keyset && keyset.accessControl);
  const nav = $("collections");
  nav.replaceChildren(
    ...COLLECTIONS.map((collection) => {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.collection = collection.name;
      button.setAttribute("aria-current", String(collection.name === state.collection));
      const name = document.createElement("span");
      name.textContent = collection.name;
      const count = document.createElement("span");
      count.className = "count";
      count.textContent = keyset && keyset.objects ? String(keyset.objects[collection.name] ?? 0) : "";
      button.append(name, count);
      button.addEventListener("click", () => selectCollection(collection.name));
      return button;
    }),
  );
  renderClassSelect();
}

function classesOf(collection) {
  const keyset = currentKeyset();
  if (!keyset) return [];
  const list = collection.space === "entity" ? keyset.entityClasses : keyset.relationshipClasses;
  return (list || []).filter((definition) => definition.collection === collection.name || collection.root === null);
}

function renderClassSelect() {
  const collection = currentCollection();
  const select = $("class-select");
  let classes = classesOf(collection);
  if (collection.name === "entities") classes = classes.filter((definition) => definition.collection === "entities");
  if (collection.name === "relationships") {
    classes = classes.filter((definition) => definition.collection === "relationships");
  }
  const options = [];
  if (collection.root) options.push(["", `all (${collection.root} and subclasses)`]);
  for (const definition of classes) {
    options.push([definition.name, `${definition.name} (${definition.level}, v${definition.latestVersion})`]);
  }
  select.replaceChildren(
    ...options.map(([value, label]) => {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = label;
      return option;
    }),
  );
  if (!options.some(([value]) => value === state.className)) state.className = options.length ? options[0][0] : "";
  select.value = state.className;
  $("class-field").hidden = collection.name === "memberships";
  $("create-json").value = JSON.stringify(createTemplate(collection), null, 0);
}

function createTemplate(collection) {
  const definition = classesOf(collection).find((item) => item.name === state.className);
  const version = definition ? definition.latestVersion : 1;
  switch (collection.name) {
    case "users":
      return { id: "", entityClassVersion: version, payload: { name: "" } };
    case "channels":
      return { id: "", entityClassVersion: version, payload: { name: "" } };
    case "entities":
      return { id: "", entityClass: state.className, entityClassVersion: version, payload: {} };
    case "memberships":
      return { channelId: "", userId: "", relationshipClassVersion: 1 };
    default:
      return { relationshipClass: state.className, relationshipClassVersion: version, entityAId: "", entityBId: "" };
  }
}

function selectCollection(name) {
  state.collection = name;
  state.className = "";
  state.selected = null;
  resetPaging();
  renderKeysetInfo();
  renderDetail(null);
  writeHash();
  loadList();
}

function resetPaging() {
  state.cursors = [null];
  state.page = 0;
}

// MARK: The object list

function listQuery() {
  const collection = currentCollection();
  const query = [["limit", $("limit").value]];
  if (state.className) {
    query.push([collection.space === "entity" ? "entity_class" : "relationship_class", state.className]);
  }
  const filter = $("filter").value.trim();
  if (filter) query.push([$("filter-param").value, filter]);
  const sort = $("sort").value.trim();
  if (sort) query.push(["sort", sort]);
  const cursor = state.cursors[state.page];
  if (cursor) query.push(["cursor", cursor]);
  return query;
}

async function loadList() {
  const generation = state.generation;
  const collection = currentCollection();
  const error = $("list-error");
  if (!state.keyset) return;
  if (!collection.root && !state.className) {
    state.rows = [];
    state.nextCursor = null;
    error.hidden = false;
    error.textContent = `This keyset defines no ${collection.name === "entities" ? "entity" : "relationship"} class yet.`;
    renderRows([]);
    markReady("list");
    return;
  }
  try {
    const body = await rest("GET", collection.name, { query: listQuery() });
    if (generation !== state.generation) return;
    error.hidden = true;
    const previous = new Set(state.rows.map((row) => row.id + "\u0000" + row.eTag));
    state.rows = body.data || [];
    state.nextCursor = (body.meta && body.meta.next_cursor) || null;
    renderRows(state.rows, previous);
  } catch (failure) {
    if (generation !== state.generation) return;
    error.hidden = false;
    error.textContent = failure.message;
    state.rows = [];
    state.nextCursor = null;
    renderRows([]);
  }
  markReady("list");
}

function className(object) {
  return object.entityClass || object.relationshipClass || "";
}

function renderRows(rows, previous = null) {
  const body = $("object-table").tBodies[0];
  body.replaceChildren(
    ...rows.map((object) => {
      const row = document.createElement("tr");
      row.dataset.id = object.id;
      row.setAttribute("aria-selected", String(object.id === state.selected));
      if (previous && !previous.has(object.id + "\u0000" + object.eTag)) row.className = "fresh";
      const version = object.entityClassVersion ?? object.relationshipClassVersion;
      for (const value of [
        object.id,
        `${className(object)} v${version}`,
        object.status ?? "",
        object.updatedAt ?? "",
        object.expiresAt ?? "",
        object.eTag ?? "",
      ]) {
        const cell = document.createElement("td");
        cell.textContent = value;
        row.append(cell);
      }
      row.addEventListener("click", () => selectObject(object.id));
      return row;
    }),
  );
  $("empty-list").hidden = rows.length > 0;
  $("page-info").textContent = `page ${state.page + 1}` + (rows.length ? ` · ${rows.length} shown` : "");
  $("prev-page").disabled = state.page === 0;
  $("first-page").disabled = state.page === 0;
  $("next-page").disabled = !state.nextCursor;
}

/// Reloads the list and the selected object soon, once, however many changes arrive meanwhile.
function scheduleRefresh() {
  clearTimeout(state.refreshTimer);
  state.refreshTimer = setTimeout(async () => {
    try {
      await loadKeysets();
    } catch (_) {
      // the stream reports connection problems
    }
    await loadList();
    if (state.selected) await loadDetail(state.selected);
  }, 200);
}

// MARK: One object

async function selectObject(id) {
  state.selected = id;
  writeHash();
  for (const row of $("object-table").tBodies[0].rows) {
    row.setAttribute("aria-selected", String(row.dataset.id === id));
  }
  await loadDetail(id);
}

async function loadDetail(id) {
  const collection = currentCollection();
  const generation = state.generation;
  let object = null;
  let failure = null;
  try {
    const body = await rest("GET", `${collection.name}/${segment(id)}`);
    object = body.data;
  } catch (error) {
    failure = error;
  }
  let history = [];
  try {
    const body = await admin(
      `/keysets/${segment(state.keyset)}/history/${collection.name}/${segment(id)}`,
    );
    history = body.changes || [];
  } catch (_) {
    // shown as an empty history
  }
  if (generation !== state.generation || state.selected !== id) return;
  renderDetail(id, object, failure, history);
}

function renderDetail(id, object = null, failure = null, history = []) {
  $("detail-title").textContent = id ? `${state.collection}/${id}` : "No object selected";
  $("detail-json").textContent = object
    ? JSON.stringify(object, null, 2)
    : failure
      ? failure.message
      : id
        ? ""
        : "Pick an object in the list.";
  $("edit-box").hidden = !object;
  if (object) $("edit-json").value = JSON.stringify(editableData(object), null, 2);
  const list = $("history");
  list.replaceChildren(
    ...history
      .slice()
      .reverse()
      .map((change) => {
        const item = document.createElement("li");
        item.className = change.action;
        item.title = JSON.stringify(change.object, null, 2);
        appendParts(item, [
          ["time", change.time],
          ["tag", change.action],
          [null, `${change.cause === "request" ? "" : change.cause + " · "}eTag ${change.eTag ?? "–"} · #${change.sequence}`],
        ]);
        return item;
      }),
  );
  if (id && history.length === 0) {
    const item = document.createElement("li");
    item.className = "muted";
    item.textContent = "No change of this object is in the emulator's change buffer.";
    list.append(item);
  }
}

function editableData(object) {
  const data = {};
  for (const field of ["entityClassVersion", "relationshipClassVersion", "status", "payload"]) {
    if (object[field] !== undefined) data[field] = object[field];
  }
  return data;
}

function appendParts(element, parts) {
  for (const [className, text] of parts) {
    const span = document.createElement("span");
    if (className) span.className = className;
    span.textContent = text + " ";
    element.append(span);
  }
}

// MARK: Edits (only through the REST API, only when allowed)

async function createObject() {
  const collection = currentCollection();
  let data;
  try {
    data = JSON.parse($("create-json").value);
  } catch (error) {
    notify("The new object is not valid JSON: " + error.message);
    return;
  }
  if (data.id === "") delete data.id;
  try {
    const body = await rest("POST", collection.name, { body: { data }, contentType: mediaType(collection) });
    notify(`Created ${collection.name}/${body.data.id}.`, true);
    state.selected = body.data.id;
    scheduleRefresh();
  } catch (error) {
    notify("Create refused: " + error.message);
  }
}

async function saveObject() {
  const collection = currentCollection();
  const row = state.rows.find((object) => object.id === state.selected);
  let data;
  try {
    data = JSON.parse($("edit-json").value);
  } catch (error) {
    notify("The object is not valid JSON: " + error.message);
    return;
  }
  try {
    await rest("PUT", `${collection.name}/${segment(state.selected)}`, {
      body: { data },
      contentType: mediaType(collection),
      ifMatch: row ? row.eTag : undefined,
    });
    notify(`Saved ${collection.name}/${state.selected}.`, true);
    scheduleRefresh();
  } catch (error) {
    notify("Save refused: " + error.message);
  }
}

async function deleteObject() {
  const collection = currentCollection();
  const id = state.selected;
  if (!id || !confirm(`Delete ${collection.name}/${id}? Its memberships and relationships go too.`)) return;
  try {
    await rest("DELETE", `${collection.name}/${segment(id)}`);
    notify(`Deleted ${collection.name}/${id}.`, true);
    state.selected = null;
    renderDetail(null);
    scheduleRefresh();
  } catch (error) {
    notify("Delete refused: " + error.message);
  }
}

// MARK: Reset, export, import, clock

async function resetKeyset() {
  if (!confirm(`Reset keyset ${state.keyset}? Every object, custom class, channel group and presence goes.`)) return;
  try {
    const body = await admin(`/keysets/${segment(state.keyset)}/reset`, { method: "POST" });
    const removed = Object.values(body.removedObjects || {}).reduce((sum, count) => sum + count, 0);
    notify(`Keyset ${state.keyset} reset: ${removed} objects removed.`, true);
    state.selected = null;
    renderDetail(null);
    resetPaging();
    scheduleRefresh();
  } catch (error) {
    notify("Reset failed: " + error.message);
  }
}

async function exportKeyset() {
  try {
    const body = await admin("/export?keyset=" + encodeURIComponent(state.keyset));
    const blob = new Blob([JSON.stringify(body, null, 2) + "\n"], { type: "application/json" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = `datasync-${state.keyset}.json`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  } catch (error) {
    notify("Export failed: " + error.message);
  }
}

async function importFile(file) {
  const text = await file.text();
  let keysets = [];
  try {
    keysets = Object.keys(JSON.parse(text).keysets || {});
  } catch (error) {
    notify("The file is not JSON: " + error.message);
    return;
  }
  if (!confirm(`Replace keyset${keysets.length === 1 ? "" : "s"} ${keysets.join(", ")} with the file's content?`)) return;
  try {
    await admin("/import", { method: "POST", body: text, headers: { "Content-Type": "application/json" } });
    notify(`Imported ${keysets.join(", ")}.`, true);
    resetPaging();
    scheduleRefresh();
  } catch (error) {
    notify("Import refused: " + error.message);
  }
}

async function loadClock() {
  try {
    const clock = await admin("/clock");
    $("clock-now").textContent = clock.now.replace("T", " ").replace(/\.\d+Z$/, "Z");
    $("clock-mode").textContent = clock.stopped ? "stopped" : "running";
  } catch (_) {
    $("clock-now").textContent = "–";
  }
}

async function advanceClock(seconds) {
  try {
    await admin("/clock/advance?seconds=" + seconds, { method: "POST" });
    await loadClock();
    scheduleRefresh();
    loadPresence();
  } catch (error) {
    notify("Could not move the clock: " + error.message);
  }
}

// MARK: Presence

async function loadPresence() {
  const container = $("presence");
  const keyset = currentKeyset();
  if (!keyset || !keyset.pubSub) {
    container.textContent = "This keyset has no pub/sub service.";
    return;
  }
  try {
    const body = await admin(`/keysets/${segment(state.keyset)}/presence`);
    const parts = [];
    for (const channel of body.channels || []) {
      const block = document.createElement("div");
      block.className = "channel";
      const title = document.createElement("strong");
      title.textContent = channel.channel;
      const count = document.createElement("span");
      count.className = "muted";
      count.textContent = ` · ${channel.occupancy} present`;
      const list = document.createElement("ul");
      for (const occupant of channel.occupants || []) {
        const item = document.createElement("li");
        item.textContent = occupant.uuid + (occupant.state ? " " + JSON.stringify(occupant.state) : "");
        item.title = occupant.expiresAt ? `times out at ${occupant.expiresAt}` : "";
        list.append(item);
      }
      block.append(title, count, list);
      parts.push(block);
    }
    for (const group of body.groups || []) {
      const block = document.createElement("div");
      block.className = "channel";
      block.textContent = `group ${group.group}: ${(group.channels || []).join(", ") || "(empty)"}`;
      parts.push(block);
    }
    if (!parts.length) {
      const empty = document.createElement("p");
      empty.className = "muted";
      empty.textContent = "Nobody is present; no channel groups.";
      parts.push(empty);
    }
    container.replaceChildren(...parts);
  } catch (error) {
    container.textContent = error.message;
  }
}

// MARK: History

// The channels that hold stored messages (as buttons), and the chosen channel's newest messages
// with their actions (reactions, receipts), newest first.
async function loadHistory() {
  // Not `history`: that is the selected object's change list in the detail pane.
  const list = $("history-messages");
  const names = $("history-channels");
  const keyset = currentKeyset();
  if (!keyset || !keyset.pubSub) {
    names.textContent = "This keyset has no pub/sub service.";
    list.replaceChildren();
    return;
  }
  const channel = $("history-channel").value.trim();
  try {
    const query = channel ? `?channel=${encodeURIComponent(channel)}&limit=100` : "";
    const body = await admin(`/keysets/${segment(state.keyset)}/messages${query}`);
    const buttons = (body.channels || []).map((name) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "link";
      button.textContent = name;
      button.addEventListener("click", () => {
        $("history-channel").value = name;
        loadHistory();
      });
      return button;
    });
    if (buttons.length) names.replaceChildren("Stored on: ", ...buttons);
    else names.textContent = "No channel has stored messages.";
    const items = (body.messages || []).map((message) => {
      const item = document.createElement("li");
      item.className = "history-message";
      const head = document.createElement("span");
      head.className = "muted";
      head.textContent = `${message.timetoken} ${message.publisher || "?"}` +
        (message.customMessageType ? ` [${message.customMessageType}]` : "") +
        (message.expiresAt ? ` · expires ${message.expiresAt}` : "");
      const text = document.createElement("code");
      text.textContent = " " + JSON.stringify(message.message);
      item.append(head, text);
      if (message.meta !== undefined) item.title = "meta: " + JSON.stringify(message.meta);
      if ((message.actions || []).length) {
        const actions = document.createElement("ul");
        actions.className = "history-actions";
        for (const action of message.actions) {
          const entry = document.createElement("li");
          entry.textContent = `${action.type}: ${action.value} by ${action.uuid} (${action.actionTimetoken})`;
          actions.append(entry);
        }
        item.append(actions);
      }
      return item;
    });
    if (channel && !items.length) {
      const empty = document.createElement("li");
      empty.className = "muted";
      empty.textContent = `Nothing stored on ${channel}.`;
      items.push(empty);
    }
    list.replaceChildren(...items);
  } catch (error) {
    names.textContent = error.message;
  }
}

// MARK: Faults

// One line per queued fault: what it does, to which requests, and how much of it is left.
function describeFault(fault) {
  let what = fault.kind;
  if (fault.kind === "status") what += " " + fault.status;
  if (fault.retryAfter !== undefined) what += ` retry-after ${fault.retryAfter}s`;
  if (fault.seconds !== undefined) what += ` ${fault.seconds}s`;
  if (fault.bytes !== undefined) what += ` ${fault.bytes} bytes`;
  const filters = [fault.family];
  if (fault.method) filters.push(fault.method);
  if (fault.pathPrefix) filters.push(fault.pathPrefix + "*");
  if (fault.channel) filters.push("#" + fault.channel);
  let left = fault.remaining === null ? "no end" : `${fault.remaining} left`;
  if (fault.probability !== undefined) left += `, p=${fault.probability}`;
  return `${fault.id} ${what} on ${filters.join(" ")} (${left}, fired ${fault.fired})`;
}

async function loadFaults() {
  const list = $("faults");
  let items;
  try {
    const body = await admin("/faults");
    items = (body.faults || []).map((fault) => {
      const item = document.createElement("li");
      item.className = "fault";
      item.dataset.id = fault.id;
      const text = document.createElement("span");
      text.textContent = describeFault(fault);
      text.title = text.textContent;
      const remove = document.createElement("button");
      remove.type = "button";
      remove.textContent = "Remove";
      remove.addEventListener("click", () => removeFault(fault.id));
      item.append(text, remove);
      return item;
    });
    if (!items.length) {
      const empty = document.createElement("li");
      empty.className = "muted";
      empty.textContent = "No faults queued.";
      items.push(empty);
    }
  } catch (error) {
    const failed = document.createElement("li");
    failed.className = "error";
    failed.textContent = error.message;
    items = [failed];
  }
  list.replaceChildren(...items);
}

function showFaultFields() {
  const kind = $("fault-kind").value;
  $("fault-status").hidden = kind !== "status";
  $("fault-retry-after").hidden = kind !== "status";
  $("fault-seconds").hidden = kind !== "delay" && kind !== "blackhole";
}

async function addFault(event) {
  event.preventDefault();
  const kind = $("fault-kind").value;
  const fault = { kind, family: $("fault-family").value };
  // Empty fields go as they are, so the emulator names the field that is missing.
  if (kind === "status") {
    fault.status = $("fault-status").value === "" ? null : Number($("fault-status").value);
    if ($("fault-retry-after").value !== "") fault.retryAfter = Number($("fault-retry-after").value);
  }
  if (kind === "delay" || kind === "blackhole") {
    fault.seconds = $("fault-seconds").value === "" ? null : Number($("fault-seconds").value);
  }
  const channel = $("fault-channel").value.trim();
  if (channel) fault.channel = channel;
  if ($("fault-count").value !== "") fault.count = Number($("fault-count").value);
  const error = $("fault-error");
  try {
    await admin("/faults", {
      method: "POST",
      body: JSON.stringify(fault),
      headers: { "Content-Type": "application/json" },
    });
    error.hidden = true;
  } catch (failure) {
    error.textContent = "Fault refused: " + failure.message;
    error.hidden = false;
  }
  loadFaults();
}

async function removeFault(id) {
  try {
    await admin("/faults/" + segment(id), { method: "DELETE" });
  } catch (error) {
    notify("Could not remove the fault: " + error.message);
  }
  loadFaults();
}

async function clearFaults() {
  try {
    await admin("/faults", { method: "DELETE" });
  } catch (error) {
    notify("Could not clear the faults: " + error.message);
  }
  loadFaults();
}

// MARK: Tools: classes

// The keyset's classes through the DataSync class routes (`entity-classes`,
// `relationship-classes`), so the service's own rules refuse a bad definition, a class still in
// use, or a built-in, and access control applies as it does to the SDK.
const CLASS_INPUT_FIELDS = ["name", "level", "extends", "ttlDays", "eventsEnabled", "versions", "cardinality",
  "entityAClass", "entityBClass"];
const tools = { classSelected: null, classes: [] };

function classTemplate(kind) {
  return kind === "entity-classes"
    ? { name: "Product", ttlDays: 31, eventsEnabled: true, versions: [{ version: 1, properties: [] }] }
    : { name: "Bought", cardinality: "one-to-many", entityAClass: "User", entityBClass: "Product", versions: [{ version: 1 }] };
}

function showClassError(message) {
  const error = $("class-error");
  error.textContent = message || "";
  error.hidden = !message;
}

async function loadClasses() {
  const list = $("class-list");
  const kind = $("class-kind").value;
  let items;
  try {
    const body = await rest("GET", kind);
    tools.classes = body.data || [];
    items = tools.classes.map((definition) => {
      const item = document.createElement("li");
      item.className = "clickable";
      item.dataset.name = definition.name;
      item.dataset.level = definition.level;
      item.setAttribute("aria-selected", String(definition.name === tools.classSelected));
      const versions = (definition.versions || []).map((version) => version.version).join(", ");
      appendParts(item, [
        ["tag", definition.level],
        [null, definition.name],
        ["muted", `versions ${versions}` + (definition.extends ? ` · extends ${definition.extends.name}` : "")],
      ]);
      item.addEventListener("click", () => showClass(definition.name));
      return item;
    });
    showClassError(null);
  } catch (error) {
    tools.classes = [];
    items = [];
    showClassError("Classes: " + error.message);
  }
  list.replaceChildren(...items);
  const selected = tools.classes.find((definition) => definition.name === tools.classSelected);
  $("class-json").textContent = selected ? JSON.stringify(selected, null, 2) : "";
  if (!selected) {
    tools.classSelected = null;
    if (!$("class-edit-json").value) $("class-edit-json").value = JSON.stringify(classTemplate(kind), null, 2);
  }
}

function showClass(name) {
  const definition = tools.classes.find((candidate) => candidate.name === name);
  if (!definition) return;
  tools.classSelected = name;
  for (const item of $("class-list").children) item.setAttribute("aria-selected", String(item.dataset.name === name));
  $("class-json").textContent = JSON.stringify(definition, null, 2);
  const editable = {};
  for (const field of CLASS_INPUT_FIELDS) if (definition[field] !== undefined) editable[field] = definition[field];
  $("class-edit-json").value = JSON.stringify(editable, null, 2);
}

function classDraft() {
  try {
    return JSON.parse($("class-edit-json").value);
  } catch (error) {
    showClassError("The definition is not valid JSON: " + error.message);
    return null;
  }
}

async function changeClass(method) {
  const kind = $("class-kind").value;
  const draft = method === "DELETE" ? null : classDraft();
  if (method !== "DELETE" && !draft) return;
  const name = method === "POST" ? null : (draft && draft.name) || tools.classSelected;
  if (method !== "POST" && !name) {
    showClassError("Pick a class in the list first.");
    return;
  }
  if (method === "DELETE" && !confirm(`Delete class ${name}? Only a SubKey class without objects can go.`)) return;
  try {
    const path = name === null ? kind : `${kind}/${segment(name)}`;
    const options = draft ? { body: { data: draft }, contentType: "application/json" } : {};
    const body = await rest(method, path, options);
    tools.classSelected = method === "DELETE" ? null : (body && body.data && body.data.name) || name;
    notify(`${method === "POST" ? "Created" : method === "PUT" ? "Replaced" : "Deleted"} class ${name || tools.classSelected}.`, true);
    showClassError(null);
    if (method === "DELETE") $("class-edit-json").value = "";
    await loadClasses();
    // The object list's class picker reads the keyset's classes.
    scheduleRefresh();
  } catch (error) {
    showClassError(`${method} refused: ${error.message}`);
  }
}

// MARK: Tools: publish

// Publishes through the pub/sub publish route (POST, the message as the body), with the keyset's
// publish key and the console's token when one is set: what the SDK's publish sends.
async function publishMessage(event) {
  event.preventDefault();
  const result = $("publish-result");
  const keyset = currentKeyset();
  const show = (text, ok) => {
    result.textContent = text;
    result.className = ok ? "muted" : "error";
  };
  if (!keyset || !keyset.pubSub) return show("This keyset has no pub/sub service.", false);
  const channel = $("publish-channel").value.trim();
  if (!channel) return show("Give a channel.", false);
  const text = $("publish-message").value;
  try {
    JSON.parse(text);
  } catch (error) {
    return show("The message is not valid JSON: " + error.message, false);
  }
  const query = [["uuid", "datasync-console"], ["store", $("publish-store").checked ? "1" : "0"]];
  const meta = $("publish-meta").value.trim();
  if (meta) {
    try {
      JSON.parse(meta);
    } catch (error) {
      return show("The meta is not valid JSON: " + error.message, false);
    }
    query.push(["meta", meta]);
  }
  const ttl = $("publish-ttl").value.trim();
  if (ttl) query.push(["ttl", ttl]);
  const token = $("auth-token").value.trim();
  if (token) query.push(["auth", token]);
  const encoded = query.map(([name, value]) => `${name}=${encodeURIComponent(value)}`);
  encoded.push(CONSOLE_TAG);
  const path = `/publish/${segment(keyset.publishKey)}/${segment(keyset.subscribeKey)}/0/${segment(channel)}/0`;
  try {
    const response = await fetch(path + "?" + encoded.join("&"), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: text,
    });
    const body = await readBody(response);
    if (response.ok && Array.isArray(body) && body[0] === 1) {
      show(`Published on ${channel} at timetoken ${body[2]}.`, true);
      if ($("publish-store").checked && $("history-channel").value.trim() === channel) loadHistory();
    } else if (Array.isArray(body)) {
      show(`Refused: HTTP ${response.status} ${body[1]}`, false);
    } else {
      show("Refused: " + describeError(response.status, body), false);
    }
  } catch (error) {
    show("Publish failed: " + error.message, false);
  }
}

// MARK: Tools: tokens

// Mints a token through the admin API (which signs it with the keyset's secret key, a key this
// page never sees) and reads one back, as `datasync grant` and `datasync token parse` do.
function grantTable(text, what) {
  const table = {};
  for (const rawLine of text.split("\n")) {
    const line = rawLine.trim();
    if (!line) continue;
    const first = line.indexOf("=");
    const last = line.lastIndexOf("=");
    const letters = line.slice(last + 1);
    if (first <= 0 || last <= first + 1 || !letters) {
      throw new Error(`${what}: "${line}" is not BUCKET=NAME=PERMS, such as channels=lobby=rw`);
    }
    let bits = 0;
    if (/^\d+$/.test(letters)) bits = Number(letters);
    else {
      for (const letter of letters.toLowerCase()) {
        const index = "rwmdcguj".indexOf(letter);
        if (index < 0) throw new Error(`${what}: "${letters}" are not letters of rwmdcguj`);
        bits |= 1 << index;
      }
    }
    const bucket = line.slice(0, first);
    (table[bucket] = table[bucket] || {})[line.slice(first + 1, last)] = bits;
  }
  return table;
}

function showTokenError(message) {
  const error = $("token-error");
  error.textContent = message || "";
  error.hidden = !message;
}

async function mintToken(event) {
  event.preventDefault();
  let permissions;
  try {
    permissions = {
      resources: grantTable($("token-resources").value, "resources"),
      patterns: grantTable($("token-patterns").value, "patterns"),
    };
  } catch (error) {
    return showTokenError(error.message);
  }
  const user = $("token-user").value.trim();
  if (user) permissions.uuid = user;
  const ttl = $("token-ttl").value === "" ? null : Number($("token-ttl").value);
  try {
    const body = await admin(`/keysets/${segment(state.keyset)}/tokens`, {
      method: "POST",
      body: JSON.stringify({ ttl, permissions }),
      headers: { "Content-Type": "application/json" },
    });
    $("token-output").value = body.token;
    $("token-minted").hidden = false;
    $("token-input").value = body.token;
    showTokenError(null);
    await parseToken();
  } catch (error) {
    showTokenError("Mint refused: " + error.message);
  }
}

async function parseToken(event) {
  if (event) event.preventDefault();
  const token = $("token-input").value.trim();
  const details = $("token-details");
  if (!token) return showTokenError("Give a token to read.");
  try {
    const body = await admin(`/keysets/${segment(state.keyset)}/tokens/parse`, {
      method: "POST",
      body: JSON.stringify({ token }),
      headers: { "Content-Type": "application/json" },
    });
    const rows = [
      ["authorized user", body.authorizedUserId || "anyone"],
      ["issued", body.issuedAt],
      ["expires", body.expiresAt + ` (${body.ttlMinutes} min)` + (body.expired ? " · expired" : "")],
      ["signed by this keyset", body.signedByThisKeyset ? "yes" + (body.revoked ? " · revoked" : "") : "no"],
    ];
    for (const scope of ["resources", "patterns"]) {
      for (const [bucket, names] of Object.entries(body[scope] || {})) {
        for (const [name, letters] of Object.entries(names)) rows.push([`${scope} ${bucket}`, `${name} = ${letters}`]);
      }
    }
    if (body.meta && Object.keys(body.meta).length) rows.push(["meta", JSON.stringify(body.meta)]);
    details.replaceChildren(
      ...rows.flatMap(([term, value]) => {
        const dt = document.createElement("dt");
        dt.textContent = term;
        const dd = document.createElement("dd");
        dd.textContent = value;
        return [dt, dd];
      }),
    );
    showTokenError(null);
  } catch (error) {
    details.replaceChildren();
    showTokenError("Cannot read it: " + error.message);
  }
}

function useMintedToken() {
  const field = $("auth-token");
  field.value = $("token-output").value;
  field.dispatchEvent(new Event("change"));
  notify("The console now sends the minted token.", true);
}

function wireToolPanels() {
  $("class-kind").addEventListener("change", () => {
    tools.classSelected = null;
    $("class-edit-json").value = "";
    loadClasses();
  });
  $("class-create").addEventListener("click", () => changeClass("POST"));
  $("class-save").addEventListener("click", () => changeClass("PUT"));
  $("class-delete").addEventListener("click", () => changeClass("DELETE"));
  $("publish-form").addEventListener("submit", publishMessage);
  $("token-mint-form").addEventListener("submit", mintToken);
  $("token-parse-form").addEventListener("submit", parseToken);
  $("token-use").addEventListener("click", useMintedToken);
  // A token typed or minted may open the class routes of a keyset with access control on.
  $("auth-token").addEventListener("change", loadClasses);
}

// MARK: Live streams (the emulator's own long-polls)

function prepend(list, item) {
  list.prepend(item);
  while (list.children.length > MAX_LOG) list.lastElementChild.remove();
}

/// HH:MM:SS.mmm (UTC) of a timetoken (100 ns ticks since 1970).
function timetokenTime(timetoken) {
  const milliseconds = Number(BigInt(timetoken) / 10000n);
  return new Date(milliseconds).toISOString().slice(11, 23);
}

function shortTime(text) {
  const match = /T(\d\d:\d\d:\d\d(\.\d{1,3})?)/.exec(text || "");
  return match ? match[1] : text || "";
}

function applyEventFilters() {
  const shown = new Set(
    [...document.querySelectorAll("#live input[data-kind]")].filter((box) => box.checked).map((box) => box.dataset.kind),
  );
  for (const item of $("events").children) {
    item.hidden = !shown.has(item.dataset.kind === "signal" ? "message" : item.dataset.kind);
  }
}

function renderChange(change) {
  const item = document.createElement("li");
  item.className = `${change.action} clickable`;
  item.dataset.kind = "change";
  item.dataset.id = change.id;
  item.dataset.collection = change.collection;
  item.title = JSON.stringify(change.object, null, 2);
  appendParts(item, [
    ["time", shortTime(change.time)],
    ["tag", change.action],
    [null, `${change.collection}/${change.id}`],
    ["muted", `${change.className} v${change.classVersion}${change.cause === "request" ? "" : " · " + change.cause}`],
  ]);
  item.addEventListener("click", () => {
    if (state.collection !== change.collection) selectCollection(change.collection);
    selectObject(change.id);
  });
  return item;
}

function renderMessage(message) {
  const item = document.createElement("li");
  item.className = message.kind;
  item.dataset.kind = message.kind.startsWith("event-") ? "message" : message.kind;
  item.title = JSON.stringify(message, null, 2);
  const payload = message.kind === "presence" && message.payload && message.payload.action
    ? `${message.payload.action} ${message.payload.uuid ?? ""} (occupancy ${message.payload.occupancy ?? "?"})`
    : JSON.stringify(message.payload);
  appendParts(item, [
    ["time", timetokenTime(message.timetoken)],
    ["tag", message.kind],
    [null, message.channel],
    ["muted", (message.publisher ? message.publisher + ": " : "") + payload],
  ]);
  return item;
}

async function eventsLoop(generation) {
  let cursor = null;
  let messagesCursor = null;
  while (generation === state.generation) {
    const query = [`keyset=${encodeURIComponent(state.keyset)}`, "limit=100"];
    if (cursor !== null) query.push(`after=${cursor}`, "wait=25");
    if (messagesCursor !== null) query.push(`messagesAfter=${messagesCursor}`);
    let body;
    try {
      body = await admin("/events?" + query.join("&"));
    } catch (error) {
      await sleep(2000);
      continue;
    }
    if (generation !== state.generation) return;
    const list = $("events");
    const items = [
      ...(body.changes || []).map((change) => [change.time, renderChange(change)]),
      ...(body.messages || []).map((message) => [message.timetoken, renderMessage(message)]),
    ];
    for (const [, item] of items) prepend(list, item);
    applyEventFilters();
    const first = cursor === null;
    cursor = body.cursor;
    messagesCursor = body.messagesCursor;
    if (!first) {
      if ((body.changes || []).length) scheduleRefresh();
      if ((body.messages || []).some((message) => message.kind === "presence")) loadPresence();
      // A publish or an action (e: 3) may have changed what the history panel shows.
      if ((body.messages || []).some((message) => message.kind === "message" || message.kind === "event-3")) {
        loadHistory();
      }
    }
    markReady("events");
  }
}

function renderRequest(entry) {
  const item = document.createElement("li");
  item.className = `s${String(entry.status)[0]}` + (entry.cancelled ? " cancelled" : "");
  item.dataset.console = String(entry.target.includes(CONSOLE_TAG));
  item.title =
    `${entry.method} ${entry.target}\n${entry.receivedAt} · ${entry.durationMs} ms · ${entry.responseBytes} bytes` +
    (entry.cancelled ? " · the client went away" : "");
  appendParts(item, [
    ["time", shortTime(entry.receivedAt)],
    ["tag", String(entry.status)],
    [null, `${entry.method} ${entry.target}`],
    ["muted", `${entry.durationMs} ms`],
  ]);
  return item;
}

function applyRequestFilter() {
  const hide = $("hide-console").checked;
  for (const item of $("requests").children) item.hidden = hide && item.dataset.console === "true";
}

async function requestsLoop(generation) {
  let cursor = null;
  while (generation === state.generation) {
    let body;
    try {
      body = await admin("/requests?limit=100" + (cursor === null ? "" : `&after=${cursor}&wait=25`));
    } catch (error) {
      await sleep(2000);
      continue;
    }
    if (generation !== state.generation) return;
    for (const entry of body.requests || []) prepend($("requests"), renderRequest(entry));
    applyRequestFilter();
    cursor = body.cursor;
    markReady("requests");
  }
}

// MARK: Start

async function switchKeyset(subscribeKey) {
  state.keyset = subscribeKey;
  state.generation += 1;
  state.selected = null;
  state.className = "";
  resetPaging();
  $("events").replaceChildren();
  $("requests").replaceChildren();
  renderKeysetInfo();
  renderDetail(null);
  writeHash();
  const generation = state.generation;
  loadList();
  loadPresence();
  loadHistory();
  tools.classSelected = null;
  $("class-edit-json").value = "";
  loadClasses();
  eventsLoop(generation);
  requestsLoop(generation);
}

async function start() {
  const settings = readHash();
  if (settings.secret) {
    sessionStorage.setItem("datasync-emulator-secret", settings.secret);
  }
  state.secret = sessionStorage.getItem("datasync-emulator-secret");
  if (settings.collection && COLLECTIONS.some((collection) => collection.name === settings.collection)) {
    state.collection = settings.collection;
  }
  state.keyset = settings.keyset || null;
  try {
    await loadKeysets();
  } catch (error) {
    notify("Cannot reach the admin API: " + error.message);
    return;
  }
  await switchKeyset(state.keyset);
  if (settings.id) selectObject(settings.id);
  loadClock();
  setInterval(loadClock, 2000);
  setInterval(loadPresence, 5000);
  // Requests use faults up: the list follows without a reload.
  loadFaults();
  setInterval(loadFaults, 2000);
}

document.addEventListener("DOMContentLoaded", () => {
  $("keyset").addEventListener("change", (event) => switchKeyset(event.target.value));
  $("class-select").addEventListener("change", (event) => {
    state.className = event.target.value;
    resetPaging();
    $("create-json").value = JSON.stringify(createTemplate(currentCollection()), null, 0);
    loadList();
  });
  $("query").addEventListener("submit", (event) => {
    event.preventDefault();
    resetPaging();
    loadList();
  });
  $("limit").addEventListener("change", () => {
    resetPaging();
    loadList();
  });
  $("next-page").addEventListener("click", () => {
    if (!state.nextCursor) return;
    state.cursors = state.cursors.slice(0, state.page + 1);
    state.cursors.push(state.nextCursor);
    state.page += 1;
    loadList();
  });
  $("prev-page").addEventListener("click", () => {
    if (state.page === 0) return;
    state.page -= 1;
    loadList();
  });
  $("first-page").addEventListener("click", () => {
    resetPaging();
    loadList();
  });
  $("auth-token").addEventListener("change", () => {
    resetPaging();
    loadList();
  });
  $("edit-mode").addEventListener("change", (event) => document.body.classList.toggle("editing", event.target.checked));
  $("create").addEventListener("click", createObject);
  $("save").addEventListener("click", saveObject);
  $("delete").addEventListener("click", deleteObject);
  $("reset").addEventListener("click", resetKeyset);
  $("export").addEventListener("click", exportKeyset);
  $("import-file").addEventListener("change", (event) => {
    const file = event.target.files[0];
    event.target.value = "";
    if (file) importFile(file);
  });
  for (const button of document.querySelectorAll("[data-advance]")) {
    button.addEventListener("click", () => advanceClock(Number(button.dataset.advance)));
  }
  for (const box of document.querySelectorAll("#live input[data-kind]")) box.addEventListener("change", applyEventFilters);
  $("hide-console").addEventListener("change", applyRequestFilter);
  $("fault-kind").addEventListener("change", showFaultFields);
  $("fault-form").addEventListener("submit", addFault);
  $("faults-clear").addEventListener("click", clearFaults);
  wireToolPanels();
  $("history-form").addEventListener("submit", (event) => {
    event.preventDefault();
    loadHistory();
  });
  $("secret-form").addEventListener("submit", (event) => {
    event.preventDefault();
    state.secret = $("secret-input").value.trim();
    sessionStorage.setItem("datasync-emulator-secret", state.secret);
    $("secret-form").hidden = true;
    location.reload();
  });
  start();
});

// MARK: Push registrations

// A keyset's mobile push registrations, one line per device with its channels. Read-only: the
// emulator keeps registrations but never sends a notification.
async function loadPush() {
  const list = $("push");
  const keyset = currentKeyset();
  if (!keyset || !keyset.pubSub) {
    list.replaceChildren();
    return;
  }
  try {
    const body = await admin(`/keysets/${segment(state.keyset)}/push`);
    const items = (body.registrations || []).map((device) => {
      const item = document.createElement("li");
      item.className = "push-device";
      const app = device.topic ? ` ${device.topic} (${device.environment})` : "";
      item.textContent = `${device.type} ${device.token}${app}: ${(device.channels || []).join(", ")}`;
      return item;
    });
    if (!items.length) {
      const empty = document.createElement("li");
      empty.className = "muted";
      empty.textContent = "No device is registered for push on this keyset.";
      items.push(empty);
    }
    list.replaceChildren(...items);
  } catch (error) {
    list.textContent = error.message;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("push-load").addEventListener("click", loadPush);
  $("keyset").addEventListener("change", () => {
    if ($("push").children.length) loadPush();
  });
});
