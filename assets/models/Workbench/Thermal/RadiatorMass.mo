within Workbench.Thermal;
model RadiatorMass "Lumped thermal mass rejecting heat to space through a radiator"
  import Modelica.Units.SI;
  import Modelica.Constants.sigma;
  parameter SI.HeatCapacity heat_capacity = 5000.0 "Mass times specific heat";
  parameter SI.Area area = 0.5 "Radiator area";
  parameter SI.Emissivity emissivity = 0.85 "Radiator emissivity";
  parameter SI.Temperature T_sink = 3.0 "Deep-space sink temperature";
  parameter SI.Temperature T_initial = 293.15 "Temperature at start";
  input SI.HeatFlowRate heat_in(start = 0) "Heat dissipated into the mass"
    annotation(Placement(transformation(extent = {{-140, -20}, {-100, 20}})));
  output SI.Temperature temperature(start = 293.15) "Mass temperature"
    annotation(Placement(transformation(extent = {{100, 10}, {120, 30}})));
  output SI.HeatFlowRate heat_rejected "Heat radiated to space"
    annotation(Placement(transformation(extent = {{100, -30}, {120, -10}})));
initial equation
  temperature = T_initial;
equation
  heat_rejected = emissivity * sigma * area * (temperature ^ 4 - T_sink ^ 4);
  heat_capacity * der(temperature) = heat_in - heat_rejected;
  annotation(Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}}),
    graphics = {Rectangle(extent = {{-80, 60}, {80, -60}}, lineColor = {191, 0, 0}, fillColor = {255, 200, 180}, fillPattern = FillPattern.Solid)}));
end RadiatorMass;
