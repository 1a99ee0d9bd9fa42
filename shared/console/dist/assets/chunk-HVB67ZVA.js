import{a,b,c}from"./chunk-KUSZK354.js";import"./chunk-HEKZ2BR7.js";import"./chunk-UAHQD3IY.js";export{c as InsightsPanel,b as duration,a as pct};
