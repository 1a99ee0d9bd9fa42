import{a,b,c}from"./chunk-AKAJABU3.js";import"./chunk-HEKZ2BR7.js";import"./chunk-AVA5BF7Z.js";export{c as InsightsPanel,b as duration,a as pct};
