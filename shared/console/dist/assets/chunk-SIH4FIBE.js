import{a,b,c}from"./chunk-7MCD4P5H.js";import"./chunk-HEKZ2BR7.js";import"./chunk-QGBGD5ZE.js";export{c as InsightsPanel,b as duration,a as pct};
