import{a,b,c}from"./chunk-DD6CRQO3.js";import"./chunk-SYZB7IRQ.js";import"./chunk-AVA5BF7Z.js";export{c as InsightsPanel,b as duration,a as pct};
