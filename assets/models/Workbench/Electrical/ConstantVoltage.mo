within Workbench.Electrical;
model ConstantVoltage "Ideal source with a settable voltage input"
  extends Workbench.Interfaces.OnePort;
  input Modelica.Units.SI.Voltage V_in "Source voltage" annotation(Placement(transformation(extent = {{-20, 100}, {20, 140}}, rotation = -90)));
equation
  v = V_in;
  annotation(Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}}), graphics = {Ellipse(extent = {{-50, 50}, {50, -50}}, lineColor = {0, 0, 255})}));
end ConstantVoltage;
