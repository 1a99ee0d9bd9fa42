// Shareable URLs through the History API: /queue/se_… opens that item for anyone with access.
import { signal } from "@preact/signals";

export const path = signal(location.pathname);

export function navigate(to: string, replace = false) {
  if (to === location.pathname + location.search) return;
  if (replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  path.value = location.pathname;
}

addEventListener("popstate", () => (path.value = location.pathname));

/** segments of the current path: "/queue/se_1" → ["queue", "se_1"]. */
export function segments(): string[] {
  return path.value.split("/").filter(Boolean);
}

// A console framed by a host ERP was loaded with ?embed=<tenant>, which its frame-ancestors
// and embedded session depend on: every URL it shows keeps it, so a reload stays framed.
export const embed = new URLSearchParams(location.search).get("embed");
if (embed) {
  for (const m of ["pushState", "replaceState"] as const) {
    const f = history[m].bind(history);
    history[m] = (data, unused, url) => {
      const u = new URL(url ?? location.href, location.href);
      u.searchParams.set("embed", embed);
      f(data, unused, u);
    };
  }
}
