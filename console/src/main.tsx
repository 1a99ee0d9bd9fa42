import { render } from "preact";
import { App } from "./app";
import { adoptEmbedded, completeSignIn, type ConsoleConfig } from "./auth";
import { embed, navigate } from "./router";
import "./style.css";

async function start() {
  const root = document.getElementById("app")!;
  let config: ConsoleConfig;
  try {
    const r = await fetch("/config.json" + (embed ? "?embed=" + encodeURIComponent(embed) : "")); // the framing tenant's origins
    config = (await r.json()) as ConsoleConfig;
  } catch {
    root.textContent = "The console could not load its configuration. Reload the page.";
    return;
  }
  adoptEmbedded(config);
  if (location.pathname === config.oidc.redirectPath) {
    try {
      navigate(await completeSignIn(config), true);
    } catch (e) {
      navigate("/", true);
      root.setAttribute("data-error", String(e));
    }
  } else if (location.pathname === "/") {
    navigate("/queue", true);
  }
  render(<App config={config} />, root);
}

void start();
