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

/** accessible fails on serious or critical axe violations of what the page shows now. */
export async function accessible(page: Page, what: string) {
  const r = await new AxeBuilder({ page }).analyze();
  const bad = r.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(bad.map((v) => `${what}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

/** axeBoth checks the page as shown in light and in dark mode, and leaves it light. */
export async function axeBoth(page: Page, what: string) {
  for (const scheme of ["dark", "light"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await accessible(page, `${what} (${scheme})`);
  }
}
