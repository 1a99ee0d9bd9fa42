import{a,b,c}from"./chunk-MFITER5F.js";import"./chunk-2D2QYPKA.js";import"./chunk-PMF4UOC7.js";export{c as InsightsPanel,b as duration,a as pct};
