within Workbench.Interfaces;
connector Pin "Electrical pin: potential and current into the component"
  Modelica.Units.SI.Voltage v "Potential at the pin";
  flow Modelica.Units.SI.Current i "Current flowing into the pin";
  annotation(Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}}),
    graphics = {Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 255}, fillColor = {0, 0, 255}, fillPattern = FillPattern.Solid)}));
end Pin;
