import{a,b,c}from"./chunk-5CTP6NRY.js";import"./chunk-HEKZ2BR7.js";import"./chunk-3JGVVMFR.js";export{c as InsightsPanel,b as duration,a as pct};
