// Every main screen at a phone's, a tablet's and a desktop's width, light and dark: axe
// finds no serious or critical violation (the colour rules in light mode) and nothing
// scrolls sideways.
import { expect, test } from "./support/fixtures";
import { accessible, colourRules, signIn } from "./support/browser";
import { postSyncError, waitDiagnosed } from "./support/stack";

const widths = [390, 768, 1440];
const schemes = ["light", "dark"] as const;

for (const scheme of schemes) {
  test(`queue, detail and settings at ${widths.join(", ")} px in ${scheme} mode`, async ({ page }) => {
    // Nine pages and nine axe scans, settings the longest (policy and learned fixes since
    // issue 24): more than the default minute on a loaded machine.
    test.slow();
    const errorId = `E2E-LAYOUT-${scheme}-${Date.now()}`;
    const id = await postSyncError(errorId);
    await waitDiagnosed(id);
    await page.emulateMedia({ colorScheme: scheme });
    await signIn(page, "admin");
    // Every rule in dark mode; in light mode the colour rules, as axeBoth does: the schemes
    // differ only in the palette, so the other rules answer the same DOM the same.
    const rules = scheme === "dark" ? undefined : colourRules;
    const sideways = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    for (const width of widths) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto("/queue");
      await expect(page.getByRole("cell", { name: errorId })).toBeVisible();
      expect(await sideways(), `queue at ${width} px`).toBeLessThanOrEqual(0);
      await accessible(page, `queue ${width} ${scheme}`, rules);
      await page.goto("/queue/" + id);
      await expect(page.getByRole("region", { name: errorId })).toBeVisible();
      expect(await sideways(), `detail at ${width} px`).toBeLessThanOrEqual(0);
      await accessible(page, `detail ${width} ${scheme}`, rules);
      await page.goto("/settings");
      await expect(page.getByRole("heading", { name: "Settings" })).toBeVisible();
      expect(await sideways(), `settings at ${width} px`).toBeLessThanOrEqual(0);
      await accessible(page, `settings ${width} ${scheme}`, rules);
    }
  });
}
