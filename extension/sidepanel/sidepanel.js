// @ts-check
/** Side panel bootstrap: wires the host connection, the tabs, and the chat, agent (with workflows), settings and diagnostics views. */
import { AgentView } from "./agent.js";
import { ChatView } from "./chat.js";
import { CurrentTab } from "./current_tab.js";
import { DiagnosticsView } from "./diagnostics.js";
import { byId } from "./dom.js";
import { FirstRunCard } from "./first_run.js";
import { HostClient } from "./host_client.js";
import { HostStatus } from "./host_status.js";
import { McpView } from "./mcp.js";
import { applySavedTheme, SettingsView } from "./settings.js";
import { WorkflowsView } from "./workflows.js";
import { RecorderView } from "./recorder.js";

const TABS = ["chat", "agent", "settings", "diagnostics"];

/** @param {string} name  show one view and mark its tab selected */
function selectTab(name) {
  for (const tab of TABS) {
    const button = byId(`tab-${tab}`);
    const selected = tab === name;
    button.setAttribute("aria-selected", String(selected));
    button.tabIndex = selected ? 0 : -1;
    byId(`view-${tab}`).hidden = !selected;
  }
  diagnostics.setVisible(name === "diagnostics");
}

/** Arrow keys move between tabs (the WAI-ARIA tabs pattern); Enter/Space activate as buttons do. */
function wireTabs() {
  const visible = () => TABS.filter((t) => !byId(`tab-${t}`).hidden);
  for (const tab of TABS) {
    const button = byId(`tab-${tab}`);
    button.addEventListener("click", () => selectTab(tab));
    button.addEventListener("keydown", (e) => {
      const list = visible();
      const at = list.indexOf(tab);
      let next = null;
      if (e.key === "ArrowRight") next = list[(at + 1) % list.length];
      else if (e.key === "ArrowLeft") next = list[(at - 1 + list.length) % list.length];
      else if (e.key === "Home") next = list[0];
      else if (e.key === "End") next = list[list.length - 1];
      if (!next) return;
      e.preventDefault();
      selectTab(next);
      byId(`tab-${next}`).focus();
    });
  }
}

void applySavedTheme();
const client = new HostClient();
const tab = new CurrentTab();
const status = new HostStatus({ openSettings: () => selectTab("settings") });
const chat = new ChatView({ client, status, tab });
const agent = new AgentView({ client, status, tab, openSettings: () => selectTab("settings") });
const workflows = new WorkflowsView({ client, agent });
const recorder = new RecorderView({ client, tab, onSaved: () => void workflows.refresh() });
const diagnostics = new DiagnosticsView({ client });
const mcp = new McpView({ client, tab });
const firstRun = new FirstRunCard({ client, onReady: () => settings.load(), openSettings: () => selectTab("settings") });
const settings = new SettingsView({
  client,
  onSaved: (view) => {
    firstRun.update(view);
    chat.setHostChat(view.settings.chat);
    agent.setSettings(view.settings);
    const diag = byId("tab-diagnostics");
    diag.hidden = !view.settings.diagnostics;
    if (diag.hidden && diag.getAttribute("aria-selected") === "true") selectTab("settings");
  },
});

wireTabs();
let wasConnected = false;
client.onState((state) => {
  status.update(state);
  chat.renderModelLabel();
  const connected = state.status === "connected";
  // (Re)load the host's settings whenever a host (re)connects: it may be a new host process.
  if (connected && !wasConnected) {
    void settings.load();
    void workflows.refresh();
    mcp.start();
  }
  if (!connected) settings.showDisconnected(status.connectionProblem);
  wasConnected = connected;
});
void tab.start().then(() => chat.start());

/** The panel's parts, for the diagnostic build's test handle (eval/panel_handle.js); the panel
 * users load sets no global. */
export const panel = { client, chat, agent, workflows, recorder, settings, diagnostics, mcp, status, tab, firstRun, selectTab };
