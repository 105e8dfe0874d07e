within Workbench.Thermal;
block Thermostat "Bang-bang heater control with hysteresis: on below T_on, off above T_off"
  import Modelica.Units.SI;
  parameter SI.Temperature T_on = 283.15 "Switch the heater on below this temperature";
  parameter SI.Temperature T_off = 288.15 "Switch the heater off above this temperature";
  parameter SI.Power P_heater = 40.0 "Heater power while on";
  input SI.Temperature temperature(start = 293.15) "Measured temperature"
    annotation(Placement(transformation(extent = {{-140, -20}, {-100, 20}})));
  output SI.Power heater_power "Commanded heater power"
    annotation(Placement(transformation(extent = {{100, 10}, {120, 30}})));
  output Real switch_ons(unit = "1") "How many times the heater was switched on"
    annotation(Placement(transformation(extent = {{100, -30}, {120, -10}})));
protected
  Boolean heating(start = false) "Heater on";
  Integer count(start = 0) "Switch-on counter";
equation
  when temperature < T_on then
    heating = true;
    count = pre(count) + 1;
  elsewhen temperature > T_off then
    heating = false;
    count = pre(count);
  end when;
  heater_power = if heating then P_heater else 0;
  switch_ons = count;
  annotation(Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}}),
    graphics = {Rectangle(extent = {{-80, 60}, {80, -60}}, lineColor = {191, 0, 0}),
      Line(points = {{-60, -30}, {0, -30}, {0, 30}, {60, 30}}, color = {191, 0, 0})}));
end Thermostat;
