import{a,b,c}from"./chunk-NGAR5MYO.js";import"./chunk-HEKZ2BR7.js";import"./chunk-MS3TWKKP.js";import"./chunk-OCFWNWGB.js";export{c as InsightsPanel,b as duration,a as pct};
