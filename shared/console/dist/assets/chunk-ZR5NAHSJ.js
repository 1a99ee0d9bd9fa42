import{a,b,c}from"./chunk-HI5JBPWA.js";import"./chunk-HEKZ2BR7.js";import"./chunk-VQQISGDS.js";export{c as InsightsPanel,b as duration,a as pct};
