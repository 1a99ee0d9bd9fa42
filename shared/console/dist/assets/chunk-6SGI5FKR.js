import{a,b,c}from"./chunk-P6GGOSZX.js";import"./chunk-HEKZ2BR7.js";import"./chunk-JV6A7I76.js";export{c as InsightsPanel,b as duration,a as pct};
