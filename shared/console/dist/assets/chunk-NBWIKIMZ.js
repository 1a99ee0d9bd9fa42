import{a,b,c}from"./chunk-YXDVOLZQ.js";import"./chunk-HEKZ2BR7.js";import"./chunk-H3UD6HP7.js";export{c as InsightsPanel,b as duration,a as pct};
