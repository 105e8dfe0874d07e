within;
package Workbench "LunCoSim Workbench model library: rover, power, thermal, control, pointing"
  annotation(
    Documentation(info = "<html><p>Models the demo twins bind with <code>lunco://models/Workbench/...</code>.
Every port carries a unit; all continuous, event-free equations (clamps use noEvent).</p></html>"),
    Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}}),
      graphics = {Rectangle(extent = {{-100, -100}, {100, 100}}, lineColor = {40, 90, 160}, fillColor = {235, 242, 250}, fillPattern = FillPattern.Solid)}));
end Workbench;
