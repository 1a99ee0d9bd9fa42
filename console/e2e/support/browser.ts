import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** signIn goes through the console's Sign in and the dev issuer's page, as a person does. */
export async function signIn(page: Page, role: "operator" | "approver" | "admin", path = "/") {
  await page.goto(path);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await page.getByLabel("Role").selectOption(role);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText(`dev-${role} · ${role}`)).toBeVisible();
}

/** accessible fails on serious or critical axe violations of what the page shows now (of
 * the rules given, else of all). */
export async function accessible(page: Page, what: string, rules?: string[]) {
  const axe = new AxeBuilder({ page });
  const r = await (rules ? axe.withRules(rules) : axe).analyze();
  const bad = r.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(bad.map((v) => `${what}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

/** The axe rules whose outcome depends on colours: a colour scheme changes only the
 * palette (style.css: custom properties under prefers-color-scheme), so the rest answer
 * the same in both. */
const colourRules = ["color-contrast", "link-in-text-block"];

/** axeBoth checks the page as shown in dark mode with every rule and in light mode with the
 * colour rules (the others answer the same DOM the same), and leaves it light. */
export async function axeBoth(page: Page, what: string) {
  await page.emulateMedia({ colorScheme: "dark" });
  await accessible(page, `${what} (dark)`);
  await page.emulateMedia({ colorScheme: "light" });
  await accessible(page, `${what} (light)`, colourRules);
}
