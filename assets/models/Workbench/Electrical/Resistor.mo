within Workbench.Electrical;
model Resistor "Ideal resistor"
  extends Workbench.Interfaces.OnePort;
  parameter Modelica.Units.SI.Resistance R = 1.0 "Resistance";
equation
  v = R * i;
  annotation(Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}}), graphics = {Rectangle(extent = {{-70, 30}, {70, -30}}, lineColor = {0, 0, 255})}));
end Resistor;
